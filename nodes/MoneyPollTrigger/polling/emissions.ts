import type { IPollFunctions } from 'n8n-workflow';
import { sleep } from 'n8n-workflow';

import type { MoneyEventItem } from '../../events/item';
import { claimPoll } from './inFlight';
import { byOccurrence } from './observe';
import { loadState, type PollState, saveState, stateKey } from './state';

/**
 * The events of a poll handed to n8n, until n8n shows it has their execution
 * (docs/webhook-memory.md, "The Poll Trigger", "When n8n cannot start the execution"). n8n saves
 * the poll's static data, then creates the execution, and only logs a creation that fails (a
 * SQLite write lock, a full Postgres pool): the saved state already counts those events as
 * emitted. So a poll emits its events itself, with a done promise that tells what became of them:
 * - n8n 2.x reads the promise's `resolve` while the emit runs, calls it when the execution ends,
 *   and calls `reject` when it could not create the execution (or when a created one was cancelled);
 * - n8n 1.x reads `resolve` once it has the execution, and never settles the promise when it could
 *   not create it. It creates a trigger's executions in the order of its emits: an emission still
 *   unread when a later one of the same trigger has been read was never created.
 * Events n8n could not start are kept in the trigger's state (`retry`), which n8n saves with the
 * next emit, and emitted again: a few seconds later when n8n said so (2.x), else with the
 * trigger's next poll. They stay in the saved state until an emit of them is known to have
 * started, so a restart in between emits them again rather than never.
 */

type Done = NonNullable<Parameters<IPollFunctions['__emit']>[2]>;

/** Waits before emitting again the events n8n 2.x said it could not start; after the last, the next poll does. */
export const RETRY_DELAYS_MS = [1_000, 5_000, 15_000];

interface Emission {
	events: MoneyEventItem[];
	outcome: 'pending' | 'started' | 'failed';
	/** n8n read `resolve` during the emit: it rejects the promise when it cannot create the execution (2.x). */
	settledByN8n: boolean;
}

/** Per workflow and trigger, in this process: emissions not yet known to have started, oldest first. */
const unconfirmed = new Map<string, Emission[]>();

function keyOf(context: IPollFunctions): string {
	return `${context.getWorkflow().id ?? ''}|${stateKey(context.getNode())}`;
}

/** A cancelled execution existed: n8n-workflow's ExecutionCancelledError and its subclasses. */
function wasCancelled(error: unknown): boolean {
	return error instanceof Error && /ExecutionCancelledError$/.test(error.name);
}

/**
 * Settles the record of this trigger's emissions: the ids of events whose emission started, the
 * events of those n8n could not start, and the ids of events still in flight.
 */
function settle(key: string): { started: Set<string>; failed: MoneyEventItem[]; inFlight: Set<string> } {
	const emissions = unconfirmed.get(key) ?? [];
	const lastReadBy1x = emissions.reduce((last, emission, index) => (emission.outcome === 'started' && !emission.settledByN8n ? index : last), -1);
	const started = new Set<string>();
	const failed: MoneyEventItem[] = [];
	const inFlight = new Set<string>();
	const kept = emissions.filter((emission, index) => {
		const neverCreated = emission.outcome === 'failed' || (emission.outcome === 'pending' && !emission.settledByN8n && index < lastReadBy1x);
		if (neverCreated) failed.push(...emission.events);
		else if (emission.outcome === 'started') for (const event of emission.events) started.add(event.id);
		else for (const event of emission.events) inFlight.add(event.id);
		return emission.outcome === 'pending' && !neverCreated;
	});
	if (kept.length > 0) unconfirmed.set(key, kept);
	else unconfirmed.delete(key);
	return { started, failed, inFlight };
}

/**
 * Saves the poll's state and emits its new events, with those n8n could not start before, in order
 * of occurrence, as one execution. Returns how many were emitted again.
 */
export function emitEvents(context: IPollFunctions, state: PollState, fresh: MoneyEventItem[], attempt = 0): number {
	const key = keyOf(context);
	const { started, failed, inFlight } = settle(key);
	const retry = new Map<string, MoneyEventItem>();
	for (const event of [...(state.retry ?? []), ...failed]) if (!started.has(event.id)) retry.set(event.id, event);
	state.retry = [...retry.values()];
	if (state.retry.length === 0) delete state.retry;
	saveState(context, state);
	const again = [...retry.values()].filter((event) => !inFlight.has(event.id));
	const events = [...new Map([...again, ...fresh].map((event) => [event.id, event])).values()].sort(byOccurrence);
	if (events.length === 0) return 0;
	const emission: Emission = { events, outcome: 'pending', settledByN8n: false };
	let emitting = true;
	const done = {
		promise: new Promise<undefined>(() => undefined),
		get resolve() {
			if (emitting) emission.settledByN8n = true;
			else if (emission.outcome === 'pending') emission.outcome = 'started';
			return () => {
				emission.outcome = 'started';
			};
		},
		get reject() {
			return (error: unknown) => {
				if (emission.outcome !== 'pending') return;
				emission.outcome = wasCancelled(error) ? 'started' : 'failed';
				if (emission.outcome === 'failed' && attempt < RETRY_DELAYS_MS.length) void emitAgainSoon(context, attempt);
			};
		},
	};
	unconfirmed.set(key, [...(unconfirmed.get(key) ?? []), emission]);
	context.__emit([context.helpers.returnJsonArray(events)], undefined, done as unknown as Done);
	emitting = false;
	return again.length;
}

/**
 * After n8n said it could not start an emission (2.x): emits its events again a moment later, as
 * a poll of the trigger would (nothing else of the trigger runs meanwhile), so n8n saves them with
 * the trigger's state and tries again.
 */
async function emitAgainSoon(context: IPollFunctions, attempt: number): Promise<void> {
	await sleep(RETRY_DELAYS_MS[attempt]);
	const release = claimPoll(context);
	if (!release) return;
	try {
		const again = emitEvents(context, loadState(context), [], attempt + 1);
		if (again > 0) context.logger.warn('Money Poll Trigger emits again events n8n could not start an execution for', { node: context.getNode().name, events: again });
	} catch (error) {
		context.logger.warn('Money Poll Trigger could not emit again events n8n could not start; its next poll does', { node: context.getNode().name, error: String(error) });
	} finally {
		release();
	}
}
