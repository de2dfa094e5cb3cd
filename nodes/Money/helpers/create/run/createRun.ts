import type { ICredentialDataDecryptedObject, IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { type TransactionResource } from '../../../../api/values';
import { cancelledError, cancelSignalOf, waitUnlessCancelled } from '../../../../transport/cancellation';
import { asNodeError, CREATE_OUTCOME_UNKNOWN, type NodeError } from '../../../../transport/errors';
import type { MoneyApiAnswer } from '../../../../transport/request';
import { type CallSettings } from '../../../actions/node.type';
import { checkRunBalance, type RunRefusal } from './balanceCheck';
import { adviceFor, classifyRefusal, describeStop, RunStops, type RunStop } from './caps';
import { minimumPacedDurationMs, VelocityPacer, velocitySettingsFrom, type VelocitySettings } from './pacing';
import { announce, durationText, progressLine, shouldReport, shouldSummarise, summarise, type RunCounts } from './progress';

type OnVelocityLimit = 'wait' | 'fail';

export interface CreateRunSettings {
	onVelocityLimit: OnVelocityLimit;
	maxTotalWaitMs: number;
	checkBalanceFirst: boolean;
	velocity: VelocitySettings;
}

/** The default of the option Maximum Total Wait (descriptions/createFields.ts). */
export const DEFAULT_MAX_TOTAL_WAIT_MINUTES = 60;

/**
 * The run's settings from the node's Options. On Velocity Limit, Maximum Total Wait and Check
 * Balance First are payout Options: a charge run keeps their defaults (it waits out a velocity
 * refusal up to the default total wait), whatever the node's parameters hold.
 */
export function createRunSettings(resource: TransactionResource, options: IDataObject, credentials: ICredentialDataDecryptedObject): CreateRunSettings {
	const payout: IDataObject = resource === 'payout' ? options : {};
	const minutes = Number(payout.maxTotalWaitMinutes ?? DEFAULT_MAX_TOTAL_WAIT_MINUTES);
	return {
		onVelocityLimit: payout.onVelocityLimit === 'fail' ? 'fail' : 'wait',
		maxTotalWaitMs: Number.isFinite(minutes) && minutes >= 0 ? minutes * 60_000 : DEFAULT_MAX_TOTAL_WAIT_MINUTES * 60_000,
		checkBalanceFirst: payout.checkBalanceFirst === true,
		velocity: velocitySettingsFrom(credentials.velocityLimit, credentials.velocityWindowSeconds),
	};
}

export interface CreateAttempt {
	resource: TransactionResource;
	itemIndex: number;
	idempotencyKey: string;
	currency: string;
	accountNumber?: string;
	amount: number;
}

function notAttempted(context: IExecuteFunctions, attempt: CreateAttempt, message: string, description: string, extra: IDataObject): NodeOperationError {
	const error = new NodeOperationError(context.getNode(), message, { itemIndex: attempt.itemIndex, description });
	Object.assign(error.context, { attempted: false, ...extra });
	return error;
}

/**
 * A create's failure after earlier calls of it (before a velocity refusal) got no answer or a 5xx:
 * the API may hold the create whatever this failure says, so the error counts those attempts, is not
 * "not sent", and says the money may have moved (docs/idempotency.md, "What `outcome` says").
 */
function withEarlierUnanswered(error: NodeError, resource: TransactionResource, unansweredBefore: number): NodeError {
	if (unansweredBefore === 0) return error;
	error.context.unansweredAttempts = unansweredBefore + Number(error.context.unansweredAttempts ?? 0);
	const notSentNow = error.context.attempted === false;
	delete error.context.attempted;
	if (!String(error.description ?? '').includes(CREATE_OUTCOME_UNKNOWN)) {
		const earlier = `An earlier attempt of this ${resource} got no answer or a 5xx${notSentNow ? ' (this time it was not sent again)' : ''}.`;
		const kept = notSentNow ? '' : `${error.description ?? ''} `;
		error.description = `${kept}${earlier} ${CREATE_OUTCOME_UNKNOWN}`.trim();
	}
	return error;
}

/**
 * One node execution's creates: pacing, caps met, the balance check and progress.
 *
 * This memory lives for one execution and cannot be shared with other executions: n8n runs
 * executions side by side, in queue mode in other processes, and gives an action node no store
 * that is shared, locked and current (workflow static data is saved whole after the run, last
 * write wins). What other executions send on the same API client therefore reaches this run as
 * a velocity refusal, which it waits out and resends with the same idempotency key: a refused
 * create moved nothing.
 */
export class CreateRun {
	private readonly pacers = new Map<TransactionResource, VelocityPacer>();
	private readonly stops = new RunStops();
	private balanceVerdict?: Promise<RunRefusal | undefined>;
	private waitExhausted?: string;
	private readonly counts: RunCounts = { created: 0, failed: 0, notAttempted: 0, waitedMs: 0 };
	private reported = 0;
	private started = false;

	constructor(
		protected readonly settings: CreateRunSettings,
		private readonly callSettings: CallSettings,
		private readonly now: () => number = Date.now,
	) {}

	private pacer(resource: TransactionResource): VelocityPacer {
		let pacer = this.pacers.get(resource);
		if (!pacer) this.pacers.set(resource, (pacer = new VelocityPacer({ ...this.settings.velocity })));
		return pacer;
	}

	/**
	 * Sends one create through `request`, which may be called again (same key, same body) after a
	 * velocity refusal. The answer's `unansweredAttempts` counts every attempt of this create that got
	 * no answer or a 5xx, across those calls: the API may hold one, so a replayed answer can be its
	 * own commit. `replayed` tells an answer from the API's idempotency record for a create sent
	 * before: it created nothing, so it takes no room in the window.
	 */
	async send(
		context: IExecuteFunctions,
		attempt: CreateAttempt,
		request: () => Promise<MoneyApiAnswer>,
		replayed: (answer: MoneyApiAnswer) => boolean = () => false,
	): Promise<MoneyApiAnswer> {
		if (!this.started) {
			this.started = true;
			const estimate = pacedRunEstimate(attempt.resource, context.getInputData().length, this.settings);
			if (estimate) this.say(context, estimate, 'log');
		}
		try {
			const result = await this.sendPaced(context, attempt, request, replayed);
			this.counts.created++;
			return result;
		} catch (error) {
			const nodeError = asNodeError(context.getNode(), error, attempt.itemIndex);
			if (nodeError.context.attempted === false) this.counts.notAttempted++;
			else this.counts.failed++;
			nodeError.context.idempotency_key = attempt.idempotencyKey;
			throw nodeError;
		} finally {
			this.reportProgress(context, attempt);
		}
	}

	private async sendPaced(
		context: IExecuteFunctions,
		attempt: CreateAttempt,
		request: () => Promise<MoneyApiAnswer>,
		replayed: (answer: MoneyApiAnswer) => boolean,
	): Promise<MoneyApiAnswer> {
		if (attempt.resource === 'payout' && this.settings.checkBalanceFirst) {
			this.balanceVerdict ??= checkRunBalance.call(context, this.callSettings);
			const refusal = await this.balanceVerdict;
			if (refusal) throw refusal(attempt.itemIndex);
		}
		const stop = this.stops.find(attempt);
		if (stop) throw this.skippedByStop(context, attempt, stop);

		const waits = this.settings.onVelocityLimit === 'wait';
		const paced = waits && attempt.resource === 'payout';
		/** Attempts of the calls before this one that got no answer or a 5xx: the API may hold one of them. */
		let unansweredBefore = 0;
		try {
			for (;;) {
				if (paced) await this.waitFor(context, attempt, this.pacer(attempt.resource).delayBeforeNext(this.now()));
				try {
					const answered = await request();
					const answer = { ...answered, unansweredAttempts: unansweredBefore + answered.unansweredAttempts };
					if ((paced || this.pacers.has(attempt.resource)) && !replayed(answer)) this.pacer(attempt.resource).recordSend(this.now());
					return answer;
				} catch (error) {
					const nodeError = asNodeError(context.getNode(), error, attempt.itemIndex);
					const details = nodeError.context.details as IDataObject | undefined;
					const kind = classifyRefusal(nodeError.context.error_code, details);
					if (kind === 'velocity') {
						const wait = this.pacer(attempt.resource).learnFromRefusal(details, this.now());
						if (!waits) throw nodeError;
						unansweredBefore += Number(nodeError.context.unansweredAttempts ?? 0);
						await this.waitFor(context, attempt, wait);
						continue;
					}
					if (kind !== 'other') this.recordStop(context, attempt, nodeError, kind, details);
					throw nodeError;
				}
			}
		} catch (error) {
			throw withEarlierUnanswered(asNodeError(context.getNode(), error, attempt.itemIndex), attempt.resource, unansweredBefore);
		}
	}

	private async waitFor(context: IExecuteFunctions, attempt: CreateAttempt, waitMs: number): Promise<void> {
		if (waitMs <= 0 && !this.waitExhausted) return;
		const { limit, windowMs } = this.pacer(attempt.resource);
		const rule = `${limit} per ${windowMs / 1000} s`;
		if (!this.waitExhausted && this.counts.waitedMs + waitMs > this.settings.maxTotalWaitMs) {
			this.waitExhausted = `waiting for the velocity limit (${rule}) would take this run past its Maximum Total Wait of ${this.settings.maxTotalWaitMs / 60_000} min (already waited ${Math.round(this.counts.waitedMs / 1000)} s)`;
		}
		if (this.waitExhausted) {
			throw notAttempted(
				context,
				attempt,
				`Not sent: ${this.waitExhausted}`,
				'Nothing was sent for this item. Raise Maximum Total Wait (Options), split the run, or ask the Money API provider for a higher velocity limit; running the workflow again with Business References pays nobody twice.',
				{ error_code: null, details: { velocity_limit: limit, velocity_window_seconds: windowMs / 1000, waited_seconds: Math.round(this.counts.waitedMs / 1000) } },
			);
		}
		if (waitMs >= 1000) {
			const total = context.getInputData().length;
			this.say(context, `Money ${attempt.resource} run: waiting ${Math.ceil(waitMs / 1000)} s for the velocity limit (${rule}) before item ${attempt.itemIndex + 1} of ${total}`, 'log');
		}
		if (await this.pause(context, waitMs)) {
			throw cancelledError(context.getNode(), `The execution was cancelled while this ${attempt.resource} waited for the velocity limit; it was not sent`, { itemIndex: attempt.itemIndex, attempted: false });
		}
		this.counts.waitedMs += waitMs;
	}

	private recordStop(context: IExecuteFunctions, attempt: CreateAttempt, error: NodeError, kind: RunStop['kind'], details: IDataObject | undefined): void {
		const stop: RunStop = {
			kind,
			itemIndex: attempt.itemIndex,
			errorCode: String(error.context.error_code),
			httpCode: typeof error.context.httpCode === 'number' ? error.context.httpCode : null,
			currency: attempt.currency,
			details: details ?? {},
		};
		this.stops.record(attempt, stop);
		const later = context.getInputData().length - attempt.itemIndex - 1;
		const cause = describeStop(stop, attempt.amount);
		if (!context.continueOnFail()) {
			error.message = `${error.message}: ${cause}; the run stopped here and ${later} later items were not attempted`;
		} else {
			error.description = `${error.description ?? ''} This cannot clear within the run: the remaining ${attempt.currency} ${attempt.resource}s of this run from the same wallet fail without being sent.`.trim();
		}
	}

	private skippedByStop(context: IExecuteFunctions, attempt: CreateAttempt, stop: RunStop): NodeOperationError {
		return notAttempted(
			context,
			attempt,
			`Not sent: ${describeStop(stop, attempt.amount)} (${stop.errorCode})`,
			`The Money API refused item ${stop.itemIndex + 1} with ${stop.errorCode}, which cannot clear within this run, so this ${attempt.resource} was not sent. ${adviceFor(stop)}`,
			{ error_code: stop.errorCode, httpCode: null, details: stop.details },
		);
	}

	private reportProgress(context: IExecuteFunctions, attempt: CreateAttempt): void {
		const total = context.getInputData().length;
		const done = attempt.itemIndex + 1;
		if (shouldSummarise(done, total, this.counts)) this.say(context, progressLine(attempt.resource, done, total, this.counts), 'hint');
		if (!shouldReport(done, this.reported, total)) return;
		this.reported = done;
		this.say(context, progressLine(attempt.resource, done, total, this.counts), 'log');
	}

	/** Waits, true when the execution was stopped meanwhile. A preview waits on its own clock (../preview/previewRun.ts). */
	protected async pause(context: IExecuteFunctions, waitMs: number): Promise<boolean> {
		return await waitUnlessCancelled(waitMs, cancelSignalOf(context));
	}

	/** Says what the run is doing (progress.ts): to the log, or above the output after the run. A preview says nothing of a run it does not make. */
	protected say(context: IExecuteFunctions, line: string, where: 'log' | 'hint'): void {
		if (where === 'hint') summarise(context, line);
		else announce(context, line);
	}
}

/**
 * How long a payout run of `rows` takes at least at the velocity limit, counted from its first send
 * (undefined when the rows fit in one window or the run is not paced: charges, On Velocity Limit Fail).
 */
export function pacedRunEstimate(resource: TransactionResource, rows: number, settings: CreateRunSettings): string | undefined {
	if (resource !== 'payout' || settings.onVelocityLimit !== 'wait' || rows <= settings.velocity.limit) return undefined;
	const { limit, windowMs } = settings.velocity;
	return `Money payout run: ${rows} payouts at the velocity limit of ${limit} per ${windowMs / 1000} s take at least ${durationText(minimumPacedDurationMs(rows, settings.velocity))}`;
}
