import type { IPollFunctions } from 'n8n-workflow';

import type { MoneyEventItem } from '../../events/item';
import { byOccurrence } from './observe';
import { stateKey } from './state';

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
 * The trigger's next poll emits the events of an emission that failed again, with its own.
 */

type Done = NonNullable<Parameters<IPollFunctions['__emit']>[2]>;

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
 * Events of this trigger's emissions that n8n could not start, taken out of the record to be
 * emitted again; emissions that started are forgotten.
 */
function takeFailed(key: string): MoneyEventItem[] {
	const emissions = unconfirmed.get(key) ?? [];
	const lastReadBy1x = emissions.reduce((last, emission, index) => (emission.outcome === 'started' && !emission.settledByN8n ? index : last), -1);
	const failed: MoneyEventItem[] = [];
	const kept = emissions.filter((emission, index) => {
		const neverCreated = emission.outcome === 'failed' || (emission.outcome === 'pending' && !emission.settledByN8n && index < lastReadBy1x);
		if (neverCreated) failed.push(...emission.events);
		return emission.outcome === 'pending' && !neverCreated;
	});
	if (kept.length > 0) unconfirmed.set(key, kept);
	else unconfirmed.delete(key);
	return failed;
}

/**
 * Emits a poll's new events, and those of its earlier emissions n8n could not start, in order of
 * occurrence, as one execution. Returns how many were emitted again.
 */
export function emitEvents(context: IPollFunctions, fresh: MoneyEventItem[]): number {
	const key = keyOf(context);
	const again = takeFailed(key);
	const events = [...again, ...fresh].sort(byOccurrence);
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
				if (emission.outcome === 'pending') emission.outcome = wasCancelled(error) ? 'started' : 'failed';
			};
		},
	};
	unconfirmed.set(key, [...(unconfirmed.get(key) ?? []), emission]);
	context.__emit([context.helpers.returnJsonArray(events)], undefined, done as unknown as Done);
	emitting = false;
	return again.length;
}
