import type { IDataObject, INodeExecutionData, IWebhookFunctions } from 'n8n-workflow';

import { unixSeconds } from '../../credentials/signing/signature';
import { EVENT_ID_HARD_CAP, EVENT_ID_RETENTION_SECONDS } from '../events/memory';
import { EventClaims } from './eventClaims';
import type { NodeMemory } from './memory/nodeMemory';
import type { HeldTurn } from './memory/saveTurns';
import { MEMORY_KEY, workflowMemory, type WorkflowMemory } from './memory/workflowMemory';

/**
 * One delivery of an event from the moment it claims the event until its outcome is known
 * (docs/webhook-memory.md): committed (the event id, and the status it brought, join the node's
 * memory) or dropped (the claim ends and a retry is processed like a first delivery).
 *
 * An accepted event commits when n8n saves the static data of its request, which n8n 2.41 does
 * only after the execution exists and before it answers; or, if no save came, when n8n answered
 * 2xx. A non-2xx answer drops it. n8n ends every response, also one whose sender went away (the
 * answer is then lost, but Node still emits `prefinish`): that is when the outcome is known. Once
 * n8n wrote the event's execution, the claim is held until that answer (up to a day) however long
 * n8n takes (an execution may wait minutes for a free slot before n8n answers:
 * N8N_CONCURRENCY_PRODUCTION_LIMIT).
 */

/** The longest a claim is held before n8n writes the event's execution, without an answer. */
const HOLD_MS = 10 * 60_000;
/**
 * The longest a claim is held once the execution is written, without an answer: n8n 2.41 never
 * answers a request whose execution was stopped while it waited for a slot (ConcurrencyQueue.remove).
 */
const WRITTEN_HOLD_MS = EVENT_ID_RETENTION_SECONDS * 1000;

const claims = new EventClaims(EVENT_ID_HARD_CAP);

export class Delivery {
	private state: 'open' | 'committed' | 'dropped' = 'open';
	private status?: { key: string; value: string };
	/** The status the reference had before this event's execution was written and took it on. */
	private statusBefore?: { value: string | undefined };
	private written = false;
	/** The sender went away before n8n answered: it never sees the 2xx, and will send the event again. */
	private senderGone = false;
	/** Ends this delivery's turn to have the static data saved (taken before it asks for a save). */
	private releaseTurn?: HeldTurn;

	private constructor(
		private readonly eventKey: string,
		private readonly referenceKey: string | undefined,
		readonly memory: WorkflowMemory,
		readonly node: NodeMemory,
		private readonly eventId: string,
		private readonly global: IDataObject | undefined,
	) {}

	/**
	 * Claims the event (and its reference) for this request, unless the node's memory holds it
	 * already or another delivery of it is in flight in this n8n process; the memory loaded with the
	 * request's static data (production only: n8n saves none in test) is taken in first.
	 */
	static claim(context: IWebhookFunctions, eventId: string, reference: string | null): Delivery | 'duplicate' | 'in-flight' {
		const production = context.getMode() !== 'manual';
		const workflowId = context.getWorkflow().id ?? '';
		const nodeId = context.getNode().id;
		const scope = `${production ? 'production' : 'test'}:${workflowId}`;
		const memory = workflowMemory(scope);
		const global = production ? context.getWorkflowStaticData('global') : undefined;
		if (global) {
			memory.absorb(global[MEMORY_KEY]);
			// Taking in the older form changes the static data, which n8n then saves in this request
			// whatever its outcome: that save must write the whole memory too, not the copy loaded.
			if (absorbLegacy(memory, nodeId, context.getWorkflowStaticData('node'))) global[MEMORY_KEY] = memory.storedForm();
		}
		if (memory.node(nodeId).has(eventId)) {
			watchDuplicateAnswer(context, memory.node(nodeId), eventId);
			return 'duplicate';
		}
		const referenceClaim = reference ? `${scope}:${nodeId}:reference:${reference}` : undefined;
		const delivery = new Delivery(`${scope}:${nodeId}:event:${eventId}`, referenceClaim, memory, memory.node(nodeId), eventId, global);
		if (!claims.take(delivery, delivery.keys, Date.now(), HOLD_MS)) return 'in-flight';
		delivery.watch(context);
		return delivery;
	}

	private get keys(): string[] {
		return this.referenceKey ? [this.eventKey, this.referenceKey] : [this.eventKey];
	}

	/** The status this event moves its reference to, recorded when it commits. */
	moveStatus(key: string, value: string): void {
		this.status = { key, value };
	}

	/** The event is handled for good (accepted, or answered 200 without a run): remember it. */
	commit(): void {
		if (this.state !== 'open') return;
		this.state = 'committed';
		this.node.record(this.eventId, unixSeconds(), this.status);
		if (this.senderGone) this.node.expectRetry(this.eventId);
		claims.release(this, this.keys);
	}

	/** Nothing to remember (refused, or a duplicate): the claim ends, a retry is a first delivery. */
	release(): void {
		if (this.state !== 'open') return;
		this.state = 'dropped';
		if (this.status && this.statusBefore) this.node.restoreStatus(this.status.key, this.status.value, this.statusBefore.value);
		claims.release(this, this.keys);
	}

	/** Answered 200 without a run (duplicate status, filtered, ...): committed, and saved with the answer. */
	async settle(): Promise<void> {
		await this.takeSaveTurn();
		this.commit();
		this.markForSave();
	}

	/**
	 * The event for n8n to run. Its item tells the delivery when n8n writes the execution (n8n
	 * serialises the items then): the static data is marked changed again at that moment, after
	 * n8n 2.41 cleared the mark while preparing the run, so n8n saves it before answering, and the
	 * save commits the event.
	 */
	async accept(context: IWebhookFunctions, item: IDataObject): Promise<INodeExecutionData[][]> {
		await this.takeSaveTurn();
		this.markForSave();
		const [execution] = context.helpers.returnJsonArray([item]);
		const written = () => {
			if (this.state === 'open') this.executionWritten();
			this.markForSave();
		};
		Object.defineProperty(execution, 'toJSON', {
			enumerable: false,
			value(this: INodeExecutionData) {
				written();
				return { ...this };
			},
		});
		return [[execution]];
	}

	/**
	 * n8n is writing the event's execution; it may still wait long for a free slot before it
	 * answers. The event stays claimed until that answer. Its transaction need not wait: the status
	 * the event brings is taken on now (and given back if n8n answers an error), so the next event of
	 * that transaction is judged against it.
	 */
	private executionWritten(): void {
		if (this.written) return;
		this.written = true;
		claims.extend(this, [this.eventKey], Date.now() + WRITTEN_HOLD_MS);
		if (this.status) this.statusBefore = { value: this.node.advanceStatus(this.status.key, this.status.value) };
		if (this.referenceKey) claims.release(this, [this.referenceKey]);
	}

	/**
	 * Waits for this delivery's turn to save (production; memory/saveTurns.ts) holding its event but
	 * not its transaction: another event of the transaction joins the queue behind it instead of being
	 * refused (409) for as long as the queue ahead takes, which can outlast the sender's retries. The
	 * transaction is claimed again once the turn comes, and judged then: false when another delivery
	 * of it holds it (its execution not written yet), for a 409.
	 */
	async waitForTurn(): Promise<boolean> {
		if (!this.global || this.releaseTurn) return true;
		if (this.referenceKey) claims.release(this, [this.referenceKey]);
		await this.takeSaveTurn();
		return !this.referenceKey || claims.take(this, [this.referenceKey], Date.now(), HOLD_MS);
	}

	/**
	 * Waits until the deliveries of this workflow that will save before this one were answered
	 * (memory/saveTurns.ts), and holds the turn until this one is. Test deliveries save nothing.
	 */
	private async takeSaveTurn(): Promise<void> {
		if (!this.global || this.releaseTurn) return;
		// The queue of turns has no time limit (each turn ahead may hold it STUCK_TURN_MS): the claims
		// must not expire while this delivery waits in it, or a retry would be taken as a first delivery
		// and both would run. HOLD_MS counts from the turn.
		claims.extend(this, this.keys, Number.POSITIVE_INFINITY);
		this.releaseTurn = await this.memory.saveTurns.take();
		if (this.state === 'open') claims.extend(this, this.keys, Date.now() + HOLD_MS);
	}

	private markForSave(): void {
		if (!this.global) return;
		this.global[MEMORY_KEY] = this.memory.storedForm(() => {
			// n8n is serialising this request's save: the next turn waits for its answer.
			this.releaseTurn?.saving();
			this.commit();
		});
	}

	/** The outcome is n8n's answer: `prefinish` comes when the response is ended, sender there or not. */
	private watch(context: IWebhookFunctions): void {
		const res = context.getResponseObject();
		let answered = false;
		res.once('close', () => {
			if (!answered) this.senderGone = true;
		});
		res.once('prefinish', () => {
			answered = true;
			this.releaseTurn?.();
			if (res.statusCode < 200 || res.statusCode >= 300) return this.release();
			this.commit();
			if (this.senderGone) this.node.expectRetry(this.eventId);
		});
	}
}

/** A sender retrying an event whose first answer it never saw: once this duplicate answer is sent, it has its 2xx. */
function watchDuplicateAnswer(context: IWebhookFunctions, node: NodeMemory, eventId: string): void {
	if (!node.isRetryExpected(eventId)) return;
	context.getResponseObject().once('finish', () => node.retryAnswered(eventId));
}

/** Memory kept by earlier versions of the trigger in the node's own static data: taken in, then removed. */
function absorbLegacy(memory: WorkflowMemory, nodeId: string, nodeData: IDataObject): boolean {
	if (nodeData.seenEvents === undefined && nodeData.statuses === undefined) return false;
	memory.node(nodeId).merge(nodeData);
	for (const field of ['seenEvents', 'seenEventCount', 'statuses', 'referenceOrder']) delete nodeData[field];
	return true;
}
