import type { IDataObject, INodeExecutionData, IWebhookFunctions } from 'n8n-workflow';

import { TRANSACTION_RESOURCES, type TransactionResource } from '../../api/values';
import type { Checkpoint } from '../../events/backstop';
import { referenceKey } from '../../events/memory';
import { Claims } from './claims';
import type { HeldTurn } from './saveTurns';
import { transactionHash, type TransactionStatuses } from './statuses';
import { WEBHOOK_NAME } from '../verifyDelivery';
import { isN8n1, MEMORY_KEY, workflowMemory, type WorkflowMemory } from './workflowMemory';

/**
 * The Money Trigger's memory behind one interface (docs/webhook-memory.md): `claim` an event, then
 * `accept` it (n8n runs it), `settle` it (answered 200 without a run) or `release` it (refused).
 *
 * An event is a transaction's move to a status. It is remembered among the statuses the transaction
 * came with (statuses.ts): a redelivery repeats a status the memory holds (a duplicate), a PENDING
 * after any other status is stale (docs/decisions.md#d2). An accepted event commits when n8n saves
 * the static data of its request, which n8n 2.41 does only after the execution exists and before it
 * answers; or, if no save came, when n8n answered 2xx. A non-2xx answer drops it. n8n ends every response, also one whose sender went away
 * (Node still emits `prefinish`): that is when the outcome is known.
 *
 * Only committed statuses are in the memory, so only they are saved. Between the moment n8n writes
 * an event's execution and its answer, the event's status is in flight: its delivery holds the
 * event's claim, so a copy of the event is asked to come back later, and another event of its
 * transaction is judged against it as well as against the memory.
 */

/** The longest an event is held before n8n writes its execution, without an answer. */
const HOLD_MS = 10 * 60_000;
/**
 * The longest an event is held once its execution is written, without an answer: n8n 2.41 never
 * answers a request whose execution was stopped while it waited for a slot (ConcurrencyQueue.remove).
 */
const WRITTEN_HOLD_MS = 24 * 3600_000;
const MAX_CLAIMS = 20_000;

const claims = new Claims(MAX_CLAIMS);
/** Per transaction, its deliveries whose executions n8n wrote: their statuses are in flight while they hold their event's claim. */
const inFlight = new Map<string, Set<Delivery>>();

export interface ClaimedEvent {
	resource: TransactionResource | null;
	reference: string;
	/** The status the event reports. */
	status: string;
}

/**
 * Claims the event, and its transaction, for this request, unless the memory holds its status
 * already (or it is stale), or another delivery of it (of its transaction) is in flight in this n8n
 * instance. The memory loaded with the request's static data (production only: n8n saves none in a
 * test) is taken in first.
 */
export function claim(context: IWebhookFunctions, event: ClaimedEvent): Delivery | 'duplicate' | 'stale' | 'in-flight' {
	const { scope, memory, global } = memoryOf(context);
	const nodeId = context.getNode().id;
	const hash = transactionHash(referenceKey(event.resource, event.reference));
	const transactionKey = `${scope}:${nodeId}:${hash}`;
	const delivery = new Delivery(transactionKey, event.status, memory, memory.node(nodeId), hash, global);
	if (!claims.take(delivery, delivery.keys, Date.now(), HOLD_MS)) return 'in-flight';
	const verdict = ranUnderAnotherName(memory, nodeId, event) ? 'duplicate' : delivery.judge(event.status);
	if (verdict !== 'run') {
		claims.release(delivery, delivery.keys);
		return verdict;
	}
	delivery.watch(context);
	return delivery;
}

/**
 * Whether the event ran under the other name of its transaction: a delivery that names no resource
 * (an envelope with neither a known `type` nor an amount, docs/decisions.md#d1) keeps its status
 * under the reference alone, a backstop's hand-over under its resource.
 */
function ranUnderAnotherName(memory: WorkflowMemory, nodeId: string, event: ClaimedEvent): boolean {
	const names = event.resource === null ? TRANSACTION_RESOURCES : [null];
	return names.some((resource) => memory.ran(nodeId, resource, event.reference, event.status));
}

/**
 * The workflow's memory in this process, with the copy the request loaded taken in (production
 * only: n8n saves none in a test), and the request's static data to save it in.
 */
function memoryOf(context: IWebhookFunctions): { scope: string; memory: WorkflowMemory; global: IDataObject | undefined } {
	const production = context.getMode() !== 'manual';
	const scope = `${production ? 'production' : 'test'}:${context.getWorkflow().id ?? ''}`;
	const memory = workflowMemory(scope, isN8n1(context.getKnownNodeTypes()));
	const global = production ? context.getWorkflowStaticData('global') : undefined;
	if (global) {
		memory.absorb(global[MEMORY_KEY]);
		const url = context.getNodeWebhookUrl(WEBHOOK_NAME);
		if (url) memory.noteTrigger(context.getNode().name, { url, node: context.getNode().id });
	}
	return { scope, memory, global };
}

/**
 * Keeps a backstop poll's state (events/backstop.ts) and has n8n save it with the memory before it
 * answers, in this delivery's turn (saveTurns.ts). A test request keeps nothing.
 */
export async function keepCheckpoint(context: IWebhookFunctions, nodeId: string, checkpoint: Checkpoint): Promise<void> {
	const { memory, global } = memoryOf(context);
	if (!global) return;
	memory.keepCheckpoint(nodeId, checkpoint);
	const turn = await memory.saveTurns.take();
	context.getResponseObject().once('prefinish', () => turn());
	global[MEMORY_KEY] = memory.storedForm(() => turn.saving());
}

export class Delivery {
	private state: 'open' | 'committed' | 'dropped' = 'open';
	/** The status this event moves its transaction to, recorded when it commits. */
	private status?: string;
	/** n8n wrote the event's execution: its status is in flight until n8n answers. */
	private written = false;
	/** Ends this delivery's turn to have the static data saved (taken before it asks for a save). */
	private releaseTurn?: HeldTurn;
	/** The event: its transaction and the status label it reports. */
	private readonly eventKey: string;

	constructor(
		private readonly transactionKey: string,
		label: string,
		private readonly memory: WorkflowMemory,
		private readonly statuses: TransactionStatuses,
		private readonly hash: string,
		private readonly global: IDataObject | undefined,
	) {
		this.eventKey = `${transactionKey}:${label}`;
	}

	get keys(): string[] {
		return [this.eventKey, this.transactionKey];
	}

	/**
	 * Waits for this delivery's turn to save (production; saveTurns.ts) holding its event but not its
	 * transaction: another event of the transaction joins the queue behind it instead of being
	 * refused (409) for as long as the queue ahead takes. The transaction is claimed again once the
	 * turn comes: false when another delivery holds it (its execution not written yet), for a 409.
	 */
	async takeTurn(): Promise<boolean> {
		if (!this.global || this.releaseTurn) return true;
		claims.release(this, [this.transactionKey]);
		await this.takeSaveTurn();
		return claims.take(this, [this.transactionKey], Date.now(), HOLD_MS);
	}

	/**
	 * Judges the status the event brings (confirmed with the API or as reported) against the memory
	 * and the transaction's events in flight.
	 */
	judge(status: string): 'run' | 'duplicate' | 'stale' {
		const verdict = this.statuses.judge(this.hash, status, this.othersInFlight());
		if (verdict === 'duplicate' || verdict === 'stale') return verdict;
		this.status = status;
		return 'run';
	}

	/** The statuses of this transaction's other events in flight: each one's delivery holds its event's claim. */
	private othersInFlight(): string[] {
		const nowMs = Date.now();
		const statuses: string[] = [];
		for (const other of inFlight.get(this.transactionKey) ?? []) {
			if (claims.holder(other.eventKey, nowMs) !== other || other.state !== 'open') other.leaveFlight();
			else if (other !== this && other.status) statuses.push(other.status);
		}
		return statuses;
	}

	private leaveFlight(): void {
		const flying = inFlight.get(this.transactionKey);
		if (!flying?.delete(this) || flying.size > 0) return;
		inFlight.delete(this.transactionKey);
	}

	/** Answered 200 without a run (filtered): committed, and saved with the answer. */
	async settle(): Promise<void> {
		await this.takeSaveTurn();
		this.commit();
		this.markForSave();
	}

	/** Nothing to remember (refused, a duplicate): the claim ends, a retry is a first delivery. */
	release(): void {
		if (this.state !== 'open') return;
		this.state = 'dropped';
		claims.release(this, this.keys);
		this.leaveFlight();
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

	/** The outcome is n8n's answer: `prefinish` comes when the response is ended, sender there or not. */
	watch(context: IWebhookFunctions): void {
		const res = context.getResponseObject();
		res.once('prefinish', () => {
			this.releaseTurn?.();
			if (res.statusCode < 200 || res.statusCode >= 300) this.release();
			else this.commit();
		});
	}

	private commit(): void {
		if (this.state !== 'open') return;
		this.state = 'committed';
		if (this.status) this.statuses.advance(this.hash, this.status);
		claims.release(this, this.keys);
		this.leaveFlight();
	}

	/**
	 * n8n is writing the event's execution; it may still wait long for a free slot before it
	 * answers. The event stays claimed until that answer, its status in flight. Its transaction need
	 * not wait: the next event of that transaction is judged against this one's status too.
	 */
	private executionWritten(): void {
		if (this.written) return;
		this.written = true;
		const flying = inFlight.get(this.transactionKey);
		if (flying) flying.add(this);
		else inFlight.set(this.transactionKey, new Set([this]));
		claims.extend(this, [this.eventKey], Date.now() + WRITTEN_HOLD_MS);
		claims.release(this, [this.transactionKey]);
	}

	/**
	 * Waits until the deliveries of this workflow that will save before this one were answered
	 * (saveTurns.ts), and holds the turn until this one is. Test deliveries save nothing.
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
}
