import type { IDataObject } from 'n8n-workflow';

/** The spec's payout velocity: 20 payouts per rolling 5-minute window. */
const DEFAULT_VELOCITY_LIMIT = 20;
const DEFAULT_VELOCITY_WINDOW_SECONDS = 300;

/**
 * Our send times are taken when the answer arrives, after the server counted the payout, so a
 * slot frees here no earlier than on the server; the margin absorbs timer and clock granularity.
 */
const SAFETY_MARGIN_MS = 25;
const MIN_REFUSAL_WAIT_MS = 1000;

export interface VelocitySettings {
	limit: number;
	windowMs: number;
}

function positiveNumber(value: unknown): number | undefined {
	const number = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
	return typeof number === 'number' && Number.isFinite(number) && number > 0 ? number : undefined;
}

/** Limit and window from the credential's optional fields, the spec's values when they are empty. */
export function velocitySettingsFrom(limit: unknown, windowSeconds: unknown): VelocitySettings {
	return {
		limit: Math.floor(positiveNumber(limit) ?? DEFAULT_VELOCITY_LIMIT) || DEFAULT_VELOCITY_LIMIT,
		windowMs: (positiveNumber(windowSeconds) ?? DEFAULT_VELOCITY_WINDOW_SECONDS) * 1000,
	};
}

/**
 * Paces creates to a rolling velocity window: the next send waits until fewer than `limit` of
 * this run's own sends fall within the window. What other executions sent on the same API client
 * is unknown here and shows up as a refusal; `learnFromRefusal` adopts the limit and window the
 * refusal reports and says how long to wait before resending.
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
		let wait = Math.max(0, this.notBefore - now);
		const { limit, windowMs } = this.settings;
		if (this.sends.length >= limit) {
			const freesSlot = this.sends[this.sends.length - limit] + windowMs + SAFETY_MARGIN_MS;
			wait = Math.max(wait, freesSlot - now);
		}
		return Math.ceil(wait);
	}

	recordSend(now: number): void {
		this.sends.push(now);
		this.prune(now);
	}

	/**
	 * A velocity refusal: adopts `velocity_limit` and `velocity_window_seconds` from its details and
	 * returns how long to wait before resending: the API's own hint when it gives one, else until
	 * our oldest send leaves the window, else (the window is full of other clients' sends) the
	 * spacing of one send at the limit's steady rate.
	 */
	learnFromRefusal(details: IDataObject | undefined, now: number): number {
		const limit = positiveNumber(details?.velocity_limit);
		const windowSeconds = positiveNumber(details?.velocity_window_seconds ?? details?.window_seconds);
		if (limit !== undefined) this.settings = { ...this.settings, limit: Math.floor(limit) || 1 };
		if (windowSeconds !== undefined) this.settings = { ...this.settings, windowMs: windowSeconds * 1000 };
		this.prune(now);

		const hintSeconds = positiveNumber(details?.retry_after_seconds ?? details?.retry_after);
		let wait: number;
		if (hintSeconds !== undefined) wait = hintSeconds * 1000 + SAFETY_MARGIN_MS;
		else if (this.sends.length > 0 && this.sends.length >= this.settings.limit) {
			wait = this.sends[this.sends.length - this.settings.limit] + this.settings.windowMs + SAFETY_MARGIN_MS - now;
		} else wait = this.settings.windowMs / this.settings.limit;
		wait = Math.ceil(Math.max(MIN_REFUSAL_WAIT_MS, wait));
		this.notBefore = Math.max(this.notBefore, now + wait);
		return wait;
	}
}

/** The least time a run of `count` sends can take under the limit, counted from its first send. */
export function minimumPacedDurationMs(count: number, settings: VelocitySettings): number {
	if (count <= 0) return 0;
	return Math.floor((count - 1) / settings.limit) * settings.windowMs;
}
