import type { ICredentialDataDecryptedObject, IDataObject } from 'n8n-workflow';

import type { TransactionResource } from '../../../api/values';

/** The spec's payout velocity: 20 payouts per rolling 5-minute window. */
const DEFAULT_VELOCITY_LIMIT = 20;
const DEFAULT_VELOCITY_WINDOW_SECONDS = 300;
/** The default of the option Maximum Total Wait (descriptions/createFields.ts). */
export const DEFAULT_MAX_TOTAL_WAIT_MINUTES = 60;
/** Send times are taken when the answer arrives, after the server counted the payout: a slot frees here no earlier than there; the margin absorbs timer granularity. */
const SAFETY_MARGIN_MS = 25;
const MIN_REFUSAL_WAIT_MS = 1000;

/** A refusal that does not clear within a run: the wallet's later rows are not sent (gate.ts). */
export type StopKind = 'daily_cap' | 'monthly_cap' | 'insufficient_funds';

export interface VelocitySettings {
	limit: number;
	windowMs: number;
}

export interface PacingSettings {
	onVelocityLimit: 'wait' | 'fail';
	maxTotalWaitMs: number;
	checkBalanceFirst: boolean;
	velocity: VelocitySettings;
}

function positiveNumber(value: unknown): number | undefined {
	const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
	return typeof number === 'number' && Number.isFinite(number) && number > 0 ? number : undefined;
}

/**
 * The run's pacing from the first item's Options and the credential's velocity fields (the spec's
 * values when empty). On Velocity Limit, Maximum Total Wait and Check Balance First are payout
 * Options: a charge run keeps their defaults, whatever the node's parameters hold.
 */
export function pacingSettings(resource: TransactionResource, options: IDataObject, credentials: ICredentialDataDecryptedObject): PacingSettings {
	const payout: IDataObject = resource === 'payout' ? options : {};
	const minutes = Number(payout.maxTotalWaitMinutes ?? DEFAULT_MAX_TOTAL_WAIT_MINUTES);
	return {
		onVelocityLimit: payout.onVelocityLimit === 'fail' ? 'fail' : 'wait',
		maxTotalWaitMs: (Number.isFinite(minutes) && minutes >= 0 ? minutes : DEFAULT_MAX_TOTAL_WAIT_MINUTES) * 60_000,
		checkBalanceFirst: payout.checkBalanceFirst === true,
		velocity: {
			limit: Math.floor(positiveNumber(credentials.velocityLimit) ?? DEFAULT_VELOCITY_LIMIT) || DEFAULT_VELOCITY_LIMIT,
			windowMs: (positiveNumber(credentials.velocityWindowSeconds) ?? DEFAULT_VELOCITY_WINDOW_SECONDS) * 1000,
		},
	};
}

/**
 * What a refusal means for the rest of the run: a velocity refusal clears by waiting; a daily or
 * monthly cap or a balance too low does not clear within a run. A `LIMIT_EXCEEDED` carries the
 * limit fields of its breach (spec 7): `details.limit` naming one of them decides, else the one
 * family present, else a used velocity at its limit. Anything else is the row's own failure.
 */
export function classifyRefusal(errorCode: unknown, details: IDataObject | undefined): StopKind | 'velocity' | 'other' {
	if (errorCode === 'INSUFFICIENT_FUNDS') return 'insufficient_funds';
	if (errorCode !== 'LIMIT_EXCEEDED' || !details) return 'other';
	const families = { velocity: ['velocity_limit', 'velocity_window_seconds', 'velocity_used'], daily_cap: ['daily_cap', 'daily_used', 'daily_total'], monthly_cap: ['monthly_cap', 'monthly_used', 'monthly_total'], other: ['min_amount', 'max_amount'] };
	const kinds = Object.keys(families) as Array<keyof typeof families>;
	const named = kinds.find((kind) => typeof details.limit === 'string' && families[kind].includes(details.limit));
	if (named) return named;
	const present = kinds.filter((kind) => families[kind].some((field) => details[field] !== undefined));
	if (present.length === 1) return present[0];
	const { velocity_used: used, velocity_limit: limit } = details;
	return typeof used === 'number' && typeof limit === 'number' && limit > 0 && used >= limit ? 'velocity' : 'other';
}

/**
 * Paces creates to a rolling velocity window: the next send waits until fewer than `limit` of
 * this run's own sends fall within the window. What other executions send on the same API client
 * is unknown here and shows up as a refusal: `learnFromRefusal` adopts the limit and window it
 * reports and says how long to wait before resending (a refused create moved nothing).
 */
export class VelocityPacer {
	private readonly sends: number[] = [];
	private notBefore = 0;

	constructor(private settings: VelocitySettings) {}

	get limit(): number {
		return this.settings.limit;
	}

	get windowMs(): number {
		return this.settings.windowMs;
	}

	private prune(now: number): void {
		while (this.sends.length > 0 && this.sends[0] <= now - this.settings.windowMs) this.sends.shift();
	}

	/** Milliseconds to wait before the next send may go out; 0 when there is room now. */
	delayBeforeNext(now: number): number {
		this.prune(now);
		const { limit, windowMs } = this.settings;
		const full = this.sends.length >= limit ? this.sends[this.sends.length - limit] + windowMs + SAFETY_MARGIN_MS - now : 0;
		return Math.ceil(Math.max(0, this.notBefore - now, full));
	}

	recordSend(now: number): void {
		this.sends.push(now);
		this.prune(now);
	}

	/**
	 * A velocity refusal: adopts `velocity_limit` and `velocity_window_seconds` from its details and
	 * returns the wait before resending: the API's own hint, else until this run's oldest send leaves
	 * the window, else (other clients filled it) the spacing of one send at the limit's steady rate.
	 */
	learnFromRefusal(details: IDataObject | undefined, now: number): number {
		const limit = positiveNumber(details?.velocity_limit);
		const windowSeconds = positiveNumber(details?.velocity_window_seconds ?? details?.window_seconds);
		if (limit !== undefined) this.settings = { ...this.settings, limit: Math.floor(limit) || 1 };
		if (windowSeconds !== undefined) this.settings = { ...this.settings, windowMs: windowSeconds * 1000 };
		this.prune(now);
		const hintSeconds = positiveNumber(details?.retry_after_seconds ?? details?.retry_after);
		let wait = this.settings.windowMs / this.settings.limit;
		if (hintSeconds !== undefined) wait = hintSeconds * 1000 + SAFETY_MARGIN_MS;
		else if (this.sends.length > 0 && this.sends.length >= this.settings.limit) wait = this.sends[this.sends.length - this.settings.limit] + this.settings.windowMs + SAFETY_MARGIN_MS - now;
		wait = Math.ceil(Math.max(MIN_REFUSAL_WAIT_MS, wait));
		this.notBefore = Math.max(this.notBefore, now + wait);
		return wait;
	}
}

/** The least time a run of `count` sends takes under the limit, counted from its first send. */
export function minimumPacedDurationMs(count: number, settings: VelocitySettings): number {
	return count <= 0 ? 0 : Math.floor((count - 1) / settings.limit) * settings.windowMs;
}

/** "45 s", "10 min", "2 h 5 min". */
export function durationText(ms: number): string {
	if (ms < 120_000) return `${Math.ceil(ms / 1000)} s`;
	const minutes = Math.round(ms / 60_000);
	return minutes < 120 ? `${minutes} min` : `${Math.floor(minutes / 60)} h ${minutes % 60} min`;
}
