import type { IDataObject, IPollFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { ANSWERED_BY_TRIGGER_HEADER, HAND_OVER_HEADER, handOverBody, RECEIVER_UNAVAILABLE, signHandOver, type HandOver } from '../../events/backstop';
import type { MoneyEventItem } from '../../events/item';
import { referenceKey } from '../../events/memory';
import { isN8n1, MEMORY_KEY, workflowMemory, type WorkflowMemory } from '../../MoneyTrigger/memory/workflowMemory';
import { readWebhookSecret } from '../../MoneyTrigger/webhookSecret';
import { parseState, stateKey, type PollState, type WaitingEvent } from './state';

/**
 * The Poll Trigger as a backstop of the workflow's Money Trigger (docs/webhook-memory.md, "The
 * backstop"). It reads the API as the Poll Trigger does, and hands each event no delivery brought
 * within the grace period to the Money Trigger, which runs it unless its memory holds it: one
 * memory judges every event, whichever way it came.
 *
 * n8n saves a poll's static data only when the poll emits, and then whole, from the copy it loaded
 * when it activated the workflow: that would write an old copy of the Money Trigger's memory over
 * the events saved since. So a backstop never emits and never writes its static data. Its state
 * lives in this process between polls, and is handed to the Money Trigger as a checkpoint after
 * each poll that changed it: the Money Trigger saves it with its memory, and a poll after a restart
 * (or on another main process) continues from the newest one.
 *
 * It never throws: n8n runs the first poll when it publishes the workflow, and a poll that throws
 * then fails the publish, the Money Trigger's webhook with it. What goes wrong is reported as a
 * failed execution of the trigger (`__emitError`), and the events wait for the next poll.
 */

export interface BackstopSettings {
	triggerName: string;
	graceMs: number;
}

export const DEFAULT_GRACE_MINUTES = 5;
const HAND_OVER_TIMEOUT_MS = 30_000;
/** How long an event may wait past its grace period for n8n to answer (a restart, an upgrade) before the poll reports it. */
const STALLED_MS = 15 * 60_000;

export function backstopSettingsOf(context: IPollFunctions): BackstopSettings | null {
	if (context.getNodeParameter('backstop', false) !== true) return null;
	const name = context.getNodeParameter('moneyTrigger', 'Money Trigger');
	const minutes = context.getNodeParameter('gracePeriodMinutes', DEFAULT_GRACE_MINUTES);
	return {
		triggerName: typeof name === 'string' && name.trim() !== '' ? name.trim() : 'Money Trigger',
		graceMs: (typeof minutes === 'number' && Number.isFinite(minutes) && minutes >= 0 ? minutes : DEFAULT_GRACE_MINUTES) * 60_000,
	};
}

interface Working {
	state: PollState;
	/** The checkpoint's time (ms), never behind one the Money Trigger kept: a newer kept one is another main process's. */
	at: number;
	/** The checkpoint as last handed over. */
	handedOver: string;
	/** When the Money Trigger last kept a checkpoint (ms), or this process first kept the state. */
	keptAt: number;
}

/** Per workflow and backstop node, in this n8n instance's memory. */
const working = new Map<string, Working>();
const MAX_WORKING = 1000;

function workingKey(context: IPollFunctions): string {
	return `${context.getWorkflow().id ?? ''}|${stateKey(context.getNode())}`;
}

/**
 * The poll contexts n8n has run a poll with. n8n makes one per activation, runs its first poll
 * inside the workflow's publication (or its start) and every scheduled poll after with the same
 * one (n8n-core 2.41.1 `activatePollTrigger`, 1.123.81 `activatePolling`).
 */
const polledContexts = new WeakSet<IPollFunctions>();

/**
 * Whether this is the first poll of its context, which n8n runs inside a publication or a start:
 * n8n 2.41 abandons a publication after 84 s and n8n 1.x is not ready until that poll ends, so it
 * hands no event over (docs/webhook-memory.md, "The backstop"). Asked once, as the poll starts.
 */
export function firstPollOf(context: IPollFunctions): boolean {
	const first = !polledContexts.has(context);
	polledContexts.add(context);
	return first;
}

/**
 * A copy of the state the poll continues from: this process's, else the newest checkpoint the Money
 * Trigger kept (in the static data n8n loaded when it activated the workflow), else the state the
 * trigger saved before it was a backstop. Also the workflow's Money Trigger memory held here.
 */
export function backstopState(context: IPollFunctions): { state: PollState; memory: WorkflowMemory } {
	const memory = workflowMemory(`production:${context.getWorkflow().id ?? ''}`, isN8n1(context.getKnownNodeTypes()));
	const global = context.getWorkflowStaticData('global');
	memory.absorb(global[MEMORY_KEY]);
	const node = context.getNode();
	const kept = memory.checkpoint(node.id);
	const mine = working.get(workingKey(context));
	if (mine && (!kept || kept.at <= mine.at)) return { state: parseState(mine.state), memory };
	return { state: parseState(kept ? kept.state : global[stateKey(node)]), memory };
}

/** What a poll reports instead of throwing. */
export function reportFailure(context: IPollFunctions, error: unknown): void {
	const reported = error instanceof NodeOperationError ? error : new NodeOperationError(context.getNode(), error instanceof Error ? error : String(error));
	context.__emitError(reported);
}

/** An answer that did not end a hand-over; `error`: the Money Trigger's error code. */
type Refusal = { status: number | null; byTrigger: boolean; error?: string };

/**
 * Hands over each event seen at least the grace period ago that the named Money Trigger's memory in
 * this process does not hold (in queue mode deliveries land on webhook processes: the Money
 * Trigger's answer tells), then the state if it changed. An event the Money Trigger did not take
 * waits for the next poll; when n8n does not answer (starting, down), so do the ones after it. The
 * first poll of an activation (`first`) hands over no event, only the state: its events wait for the
 * next poll.
 */
export async function handOver(
	context: IPollFunctions,
	state: PollState,
	fresh: MoneyEventItem[],
	settings: BackstopSettings,
	memory: WorkflowMemory,
	first: boolean,
): Promise<void> {
	const nowMs = Date.now();
	const node = context.getNode().id;
	const trigger = memory.trigger(settings.triggerName);
	const { due, waiting } = sortEvents(state, fresh, memory, trigger?.node, nowMs, settings.graceMs);
	delete state.retry;
	if (!trigger) {
		keep(context, state, [...due, ...waiting], nowMs);
		return reportFailure(context, noTrigger(context, settings.triggerName));
	}

	const secret = await readWebhookSecret(context);
	const [sending, left]: [WaitingEvent[], WaitingEvent[]] = first ? [[], [...due]] : [due, []];
	let refusal: Refusal | null = null;
	for (const [index, each] of sending.entries()) {
		const { event } = each;
		const wrapped = { id: event.id, event: event.event, created_at: event.occurred_at, data: event.data };
		const answer = await post(context, trigger.url, secret, { node, event: wrapped });
		if (answer === 'taken') continue;
		if (!refusal || passes(refusal)) refusal = answer;
		left.push(each);
		if (refusesAll(answer)) {
			left.push(...sending.slice(index + 1));
			break;
		}
	}
	const current = keep(context, state, [...left, ...waiting], nowMs, memory.checkpoint(node)?.at);
	if (first && left.some((each) => nowMs - each.seenAt - settings.graceMs > STALLED_MS)) reportFailure(context, notHandedOver(context, left.length));
	if (refusal) {
		const oldest = Math.min(...left.map((each) => each.seenAt));
		if (!passes(refusal) || nowMs - oldest - settings.graceMs > STALLED_MS) {
			reportFailure(context, refused(context, settings.triggerName, refusal, { events: left.length }));
		}
		// A trigger that refused this event alone keeps the state, the events it did not take in it (a
		// body too large for it, refused 413, would be refused again with the state).
		if (refusesAll(refusal) || refusal.status === 413) return;
	}

	const checkpoint = checkpointOf(state);
	const serialised = JSON.stringify(checkpoint);
	if (serialised === current.handedOver) return;
	const answer = await post(context, trigger.url, secret, { node, checkpoint: { at: current.at, state: checkpoint } });
	if (answer === 'taken') {
		current.handedOver = serialised;
		current.keptAt = nowMs;
	} else if (!passes(answer) || nowMs - current.keptAt > STALLED_MS) {
		reportFailure(context, refused(context, settings.triggerName, answer, { stateBytes: serialised.length }));
	}
}

/**
 * No answer, n8n's own, or the trigger's 409 (another delivery of the event under way) and 503 (the
 * API could not confirm it, or the trigger could not read its credential) pass by themselves: the
 * next poll hands over again; reported once they last 15 minutes.
 */
function passes(refusal: Refusal): boolean {
	return !refusal.byTrigger || refusal.status === 409 || refusal.status === 503;
}

/** Whether the next event would get the same answer: n8n not answering (starting, down), or a trigger that cannot verify any. */
function refusesAll(refusal: Refusal): boolean {
	return !refusal.byTrigger || refusal.status === 401 || refusal.error === RECEIVER_UNAVAILABLE;
}

/** Keeps the state in this process, with the events still to hand over. */
function keep(context: IPollFunctions, state: PollState, left: WaitingEvent[], nowMs: number, keptAt = 0): Working {
	if (left.length > 0) state.handOver = left;
	else delete state.handOver;
	const key = workingKey(context);
	const previous = working.get(key);
	const current: Working = {
		state,
		at: Math.max(nowMs, keptAt + 1, (previous?.at ?? 0) + 1),
		handedOver: previous?.handedOver ?? '',
		keptAt: previous?.keptAt ?? nowMs,
	};
	working.delete(key);
	if (working.size >= MAX_WORKING) working.delete(working.keys().next().value as string);
	working.set(key, current);
	return current;
}

/**
 * What a checkpoint holds: the state without the statuses it remembers (up to thousands of
 * references, saved with every event of the Money Trigger): a poll restored from it knows the
 * statuses of its overlap (`recent`) and of what it watches, and what it sees again of the rest
 * the Money Trigger answers as a duplicate.
 */
function checkpointOf(state: PollState): IDataObject {
	const kept: IDataObject = { ...state };
	delete kept.statuses;
	delete kept.referenceOrder;
	return kept;
}

/**
 * The events of the state and of this poll that the named Money Trigger's memory in this process
 * does not hold, each with when the poll first saw it: `due` once the grace period has passed, else
 * `waiting`. An event is its transaction (resource and reference) and status.
 */
export function sortEvents(
	state: PollState,
	fresh: MoneyEventItem[],
	memory: WorkflowMemory,
	triggerNode: string | undefined,
	nowMs: number,
	graceMs: number,
): { due: WaitingEvent[]; waiting: WaitingEvent[] } {
	const seen = new Map<string, WaitingEvent>();
	const keyOf = (event: MoneyEventItem) => `${referenceKey(event.resource, event.reference ?? '')}:${event.status}`;
	for (const each of state.handOver ?? []) seen.set(keyOf(each.event), each);
	for (const event of [...(state.retry ?? []), ...fresh]) if (!seen.has(keyOf(event))) seen.set(keyOf(event), { event, seenAt: nowMs });
	const due: WaitingEvent[] = [];
	const waiting: WaitingEvent[] = [];
	for (const each of seen.values()) {
		const { event } = each;
		if (!event.reference || (triggerNode !== undefined && memory.ran(triggerNode, event.resource, event.reference, event.status))) continue;
		(nowMs - each.seenAt >= graceMs ? due : waiting).push(each);
	}
	return { due, waiting };
}

/**
 * Posts a hand-over. `taken`: the Money Trigger answered it 2xx (ran it, or knew it). An answer
 * without the trigger's header is not the trigger's: n8n answers every request 200 while it starts.
 */
async function post(context: IPollFunctions, url: string, secret: string, message: HandOver): Promise<'taken' | Refusal> {
	const body = handOverBody(message);
	try {
		const response = (await context.helpers.httpRequest({
			method: 'POST',
			url,
			body,
			headers: { 'content-type': 'application/json', [HAND_OVER_HEADER]: signHandOver(secret, url, body) },
			json: false,
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
			timeout: HAND_OVER_TIMEOUT_MS,
		})) as { statusCode: number; headers: IDataObject; body: unknown };
		const byTrigger = response.headers[ANSWERED_BY_TRIGGER_HEADER] !== undefined;
		if (byTrigger && response.statusCode >= 200 && response.statusCode < 300) return 'taken';
		return { status: response.statusCode, byTrigger, ...(byTrigger ? { error: errorCodeOf(response.body) } : {}) };
	} catch {
		return { status: null, byTrigger: false };
	}
}

/**
 * The `error` of the Money Trigger's refusal (`{ success: false, error }`): n8n-core gives a JSON body
 * parsed, whatever the request's `json`.
 */
function errorCodeOf(body: unknown): string | undefined {
	let parsed = body;
	if (typeof body === 'string') {
		try {
			parsed = JSON.parse(body);
		} catch {
			return undefined;
		}
	}
	const error = parsed !== null && typeof parsed === 'object' ? (parsed as IDataObject).error : undefined;
	return typeof error === 'string' && /^[a-z-]{1,40}$/.test(error) ? error : undefined;
}

function answerOf(refusal: Refusal): string {
	if (refusal.status === null) return 'no answer';
	if (!refusal.byTrigger) return `${refusal.status} not from the Money Trigger`;
	return refusal.error ? `${refusal.status} ${refusal.error}` : String(refusal.status);
}

function noTrigger(context: IPollFunctions, name: string): NodeOperationError {
	return new NodeOperationError(context.getNode(), `No Money Trigger named "${name}" in this workflow has been published or reached yet`, {
		description:
			'Set Money Trigger Name to the name of the Money Trigger node this trigger backs up, in the same workflow, and publish the workflow again. The events wait: each poll tries again.',
	});
}

/** A refusal of `events` handed over, or of the state (`stateBytes`), reported with what to do. */
function refused(context: IPollFunctions, name: string, refusal: Refusal, what: { events: number } | { stateBytes: number }): NodeOperationError {
	const ofState = 'stateBytes' in what;
	const message = ofState
		? `The Money Trigger "${name}" did not keep this trigger's state (${Math.ceil(what.stateBytes / 1024)} KB; ${answerOf(refusal)})`
		: `The Money Trigger "${name}" did not take ${what.events} event(s) handed over (${answerOf(refusal)})`;
	const consequence = ofState
		? 'Until the state is kept, a restart of n8n makes this trigger read again from its last kept state.'
		: 'Nothing is dropped: each poll hands them over again.';
	return new NodeOperationError(context.getNode(), message, { description: `${remedyOf(refusal, ofState)} ${consequence}` });
}

function remedyOf(refusal: Refusal, ofState: boolean): string {
	if (!refusal.byTrigger) {
		return "n8n's main process must reach the Money Trigger's Production URL (WEBHOOK_URL); a proxy in between must let these requests through.";
	}
	if (refusal.status === 401) {
		return "Give this trigger the same Money API credential as the Money Trigger (the same Webhook Secret), and keep the clocks of n8n's processes within 300 s of each other.";
	}
	if (refusal.error === RECEIVER_UNAVAILABLE) {
		return 'The Money Trigger cannot read its Money API credential: check that it still exists and that every n8n process has the same N8N_ENCRYPTION_KEY (a process shutting down answers so for a moment).';
	}
	if (refusal.status === 413) return `Raise Max Body Size in the Money Trigger's Options${ofState ? ', or lower Max Watched Transactions here' : ''}.`;
	return "See the Money Trigger's answer in the n8n log; a 409 or 503 usually passes by itself.";
}

function notHandedOver(context: IPollFunctions, waiting: number): NodeOperationError {
	return new NodeOperationError(context.getNode(), `${waiting} event(s) waited over 15 minutes past the grace period: every poll of this trigger was the first of an activation`, {
		description:
			"n8n runs a Poll Trigger's first poll inside the workflow's publication, where a backstop hands no event over. Publish the workflow and leave it published; n8n's opt-in poll scheduler (N8N_SCHEDULER_POLL_TRIGGERS_ENABLED), which makes every poll a first, is not supported.",
	});
}
