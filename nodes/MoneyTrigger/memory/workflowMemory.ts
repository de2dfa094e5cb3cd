import { randomUUID } from 'node:crypto';
import type { IDataObject } from 'n8n-workflow';

import type { TransactionResource } from '../../api/values';
import type { Checkpoint } from '../../events/backstop';
import { isPlainObject } from '../../events/envelope';
import { referenceKey } from '../../events/memory';
import { SaveTurns } from './saveTurns';
import { REMEMBERED_TRANSACTIONS, REMEMBERED_TRANSACTIONS_ON_N8N_1, transactionHash, TransactionStatuses, type StoredStatuses } from './statuses';

/**
 * The Money Trigger memories of one workflow in this n8n process, and how they are stored
 * (docs/webhook-memory.md). n8n saves a workflow's static data as one object, whichever request's
 * copy it saves: each copy therefore carries every trigger node's memory of this process, under
 * `global.moneyTriggerMemory`, written out at the moment n8n serialises it.
 */

/** The key under the workflow's global static data. */
export const MEMORY_KEY = 'moneyTriggerMemory';

/** Where a backstop hands a Money Trigger its events, and whose memory judges them. */
export interface BackstopTarget {
	url: string;
	node: string;
}

export interface StoredWorkflowMemory {
	/** Which process wrote this copy, and its how-manieth copy. */
	writer: string;
	/** Node id → its statuses' stored form (statuses.ts). */
	nodes: Record<string, StoredStatuses>;
	/** Backstop Poll Trigger node id → the newest state it handed over (events/backstop.ts). */
	backstops?: Record<string, Checkpoint>;
	/** Money Trigger node name → its Production URL, where a backstop hands events over, and its node id. */
	triggers?: Record<string, BackstopTarget>;
}

const MAX_WORKFLOWS = 1000;
/** A backstop's checkpoint not renewed for this long is not saved again: its node was deleted, or its setting turned off. */
const CHECKPOINT_KEPT_MS = 30 * 24 * 3600_000;

/**
 * Whether the n8n running the trigger is 1.x, which stores a workflow's static data with every
 * execution it saves; 2.x does not (docs/webhook-memory.md, the horizon on n8n 1.x). n8n 2.0
 * removed the Start node: n8n 1.x still ships it among its node types.
 */
export function isN8n1(knownNodeTypes: object): boolean {
	return 'n8n-nodes-base.start' in knownNodeTypes;
}

export class WorkflowMemory {
	private readonly nodes = new Map<string, TransactionStatuses>();
	private readonly checkpoints = new Map<string, Checkpoint>();
	private readonly triggers = new Map<string, BackstopTarget>();
	/** The trigger nodes this process noted: a stored copy does not rename them. */
	private readonly noted = new Set<string>();

	/** On n8n 1.x the workflow's trigger nodes share REMEMBERED_TRANSACTIONS_ON_N8N_1; on 2.x each keeps REMEMBERED_TRANSACTIONS. */
	constructor(private readonly onN8n1 = false) {}

	/** The deliveries that will have n8n save this workflow's static data, one at a time. */
	readonly saveTurns = new SaveTurns();
	/** Names the copies this memory wrote: such a copy holds nothing this memory does not know. */
	private readonly writer = randomUUID();
	private copies = 0;
	/** The writer of the copy taken in last: a backstop poll sees the same copy at every poll. */
	private lastAbsorbed?: string;

	node(nodeId: string): TransactionStatuses {
		let memory = this.nodes.get(nodeId);
		if (!memory) {
			memory = new TransactionStatuses(this.onN8n1 ? REMEMBERED_TRANSACTIONS_ON_N8N_1 : REMEMBERED_TRANSACTIONS);
			this.nodes.set(nodeId, memory);
			if (this.onN8n1) for (const each of this.nodes.values()) each.limit(Math.floor(REMEMBERED_TRANSACTIONS_ON_N8N_1 / this.nodes.size));
		}
		return memory;
	}

	/** Takes in a copy n8n loaded from the database, unless this memory wrote it or took it in already. */
	absorb(stored: unknown): void {
		if (!isPlainObject(stored) || !isPlainObject(stored.nodes)) return;
		if (typeof stored.writer === 'string') {
			if (stored.writer.startsWith(`${this.writer}:`) || stored.writer === this.lastAbsorbed) return;
			this.lastAbsorbed = stored.writer;
		}
		for (const [nodeId, statuses] of Object.entries(stored.nodes)) this.node(nodeId).merge(statuses);
		for (const [nodeId, checkpoint] of Object.entries(isPlainObject(stored.backstops) ? stored.backstops : {})) {
			if (isPlainObject(checkpoint) && typeof checkpoint.at === 'number') this.keepCheckpoint(nodeId, { at: checkpoint.at, state: checkpoint.state });
		}
		for (const [name, target] of Object.entries(isPlainObject(stored.triggers) ? stored.triggers : {})) {
			if (isPlainObject(target) && typeof target.url === 'string' && typeof target.node === 'string' && !this.noted.has(target.node) && !this.noted.has(this.triggers.get(name)?.node ?? '')) {
				this.nameTrigger(name, { url: target.url, node: target.node });
			}
		}
	}

	/**
	 * Notes a Money Trigger's Production URL, as n8n gives it to the trigger in this n8n instance. It is
	 * saved with the memory: at a restart n8n activates the webhooks it already knows without asking
	 * the trigger, and a backstop poll finds the URL in the static data it loaded. A name or node this
	 * process noted is not replaced by a stored one.
	 */
	noteTrigger(nodeName: string, target: BackstopTarget): void {
		this.nameTrigger(nodeName, target);
		this.noted.add(target.node);
	}

	/** A node is known by its current name only: a renamed trigger's old name names none. */
	private nameTrigger(nodeName: string, target: BackstopTarget): void {
		for (const [name, known] of this.triggers) if (known.node === target.node && name !== nodeName) this.triggers.delete(name);
		this.triggers.set(nodeName, target);
	}

	trigger(nodeName: string): BackstopTarget | undefined {
		return this.triggers.get(nodeName);
	}

	/** Whether a delivery of this status to the trigger node would not run: it came with it already (or it is stale). */
	ran(nodeId: string, resource: TransactionResource | null, reference: string, status: string): boolean {
		const memory = this.nodes.get(nodeId);
		if (!memory) return false;
		const verdict = memory.judge(transactionHash(referenceKey(resource, reference)), status);
		return verdict === 'duplicate' || verdict === 'stale';
	}

	/** Keeps a backstop poll's state, unless a newer one is kept. */
	keepCheckpoint(nodeId: string, checkpoint: Checkpoint): void {
		const kept = this.checkpoints.get(nodeId);
		if (!kept || kept.at < checkpoint.at) this.checkpoints.set(nodeId, checkpoint);
	}

	checkpoint(nodeId: string): Checkpoint | undefined {
		return this.checkpoints.get(nodeId);
	}

	/**
	 * An object for static data that n8n writes as this memory: JSON.stringify calls `toJSON` when
	 * n8n serialises static data for a save, so the save holds the memory as it is then, not as it
	 * was when the request loaded its copy. `onSave` runs first (the delivery commits its event).
	 */
	storedForm(onSave: () => void): IDataObject {
		const form: IDataObject = {};
		Object.defineProperty(form, 'toJSON', {
			enumerable: false,
			value: (): StoredWorkflowMemory => {
				onSave();
				const nodes: Record<string, StoredStatuses> = {};
				for (const [nodeId, memory] of this.nodes) nodes[nodeId] = memory.stored;
				const copy: StoredWorkflowMemory = { writer: `${this.writer}:${++this.copies}`, nodes };
				const current = [...this.checkpoints].filter(([, checkpoint]) => checkpoint.at > Date.now() - CHECKPOINT_KEPT_MS);
				if (current.length > 0) copy.backstops = Object.fromEntries(current);
				if (this.triggers.size > 0) copy.triggers = Object.fromEntries(this.triggers);
				return copy;
			},
		});
		return form;
	}
}

const workflows = new Map<string, WorkflowMemory>();

/** The process-wide memory of a workflow, per mode: test events never mix with production ones. */
export function workflowMemory(scope: string, onN8n1: boolean): WorkflowMemory {
	let memory = workflows.get(scope);
	if (!memory) {
		if (workflows.size >= MAX_WORKFLOWS) workflows.delete(workflows.keys().next().value as string);
		memory = new WorkflowMemory(onN8n1);
		workflows.set(scope, memory);
	} else {
		workflows.delete(scope);
		workflows.set(scope, memory);
	}
	return memory;
}
