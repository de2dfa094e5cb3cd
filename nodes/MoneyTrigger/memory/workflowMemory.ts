import { randomUUID } from 'node:crypto';
import type { IDataObject } from 'n8n-workflow';

import { isPlainObject } from '../../events/envelope';
import { SaveTurns } from './saveTurns';
import { REMEMBERED_TRANSACTIONS, REMEMBERED_TRANSACTIONS_ON_N8N_1, TransactionStatuses, type StoredStatuses } from './statuses';

/**
 * The Money Trigger memories of one workflow in this n8n process, and how they are stored
 * (docs/webhook-memory.md). n8n saves a workflow's static data as one object, whichever request's
 * copy it saves: each copy therefore carries every trigger node's memory of this process, under
 * `global.moneyTriggerMemory`, written out at the moment n8n serialises it.
 */

/** The key under the workflow's global static data. */
export const MEMORY_KEY = 'moneyTriggerMemory';

export interface StoredWorkflowMemory {
	/** Which process wrote this copy, and its how-manieth copy. */
	writer: string;
	/** Node id → its statuses' stored form (statuses.ts). */
	nodes: Record<string, StoredStatuses>;
}

const MAX_WORKFLOWS = 1000;

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

	/** On n8n 1.x the workflow's trigger nodes share REMEMBERED_TRANSACTIONS_ON_N8N_1; on 2.x each keeps REMEMBERED_TRANSACTIONS. */
	constructor(private readonly onN8n1 = false) {}

	/** The deliveries that will have n8n save this workflow's static data, one at a time. */
	readonly saveTurns = new SaveTurns();
	/** Names the copies this memory wrote: such a copy holds nothing this memory does not know. */
	private readonly writer = randomUUID();
	private copies = 0;

	node(nodeId: string): TransactionStatuses {
		let memory = this.nodes.get(nodeId);
		if (!memory) {
			memory = new TransactionStatuses(this.onN8n1 ? REMEMBERED_TRANSACTIONS_ON_N8N_1 : REMEMBERED_TRANSACTIONS);
			this.nodes.set(nodeId, memory);
			if (this.onN8n1) for (const each of this.nodes.values()) each.limit(Math.floor(REMEMBERED_TRANSACTIONS_ON_N8N_1 / this.nodes.size));
		}
		return memory;
	}

	/** Takes in a copy n8n loaded from the database, unless this memory wrote it. */
	absorb(stored: unknown): void {
		if (!isPlainObject(stored) || !isPlainObject(stored.nodes)) return;
		if (typeof stored.writer === 'string' && stored.writer.startsWith(`${this.writer}:`)) return;
		for (const [nodeId, statuses] of Object.entries(stored.nodes)) this.node(nodeId).merge(statuses);
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
				return { writer: `${this.writer}:${++this.copies}`, nodes };
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
