import { REMEMBERED_TRANSACTIONS, REMEMBERED_TRANSACTIONS_ON_N8N_1, TransactionStatuses, transactionHash } from '../../../nodes/MoneyTrigger/memory/statuses';
import { isN8n1, WorkflowMemory } from '../../../nodes/MoneyTrigger/memory/workflowMemory';

const tx = (index: number) => transactionHash(`charge:CH-${index}`);
const LABELS = ['PENDING', 'COMPLETED', 'FAILED', 'CANCELLED', 'REVERSED', 'PROCESSING', 'REFUNDED'];

/** The stored form of a memory of `count` transactions, each with one of seven labels. */
function saved(count: number) {
	const memory = new TransactionStatuses(count);
	for (let index = 0; index < count; index++) memory.advance(tx(index), LABELS[index % LABELS.length]);
	return memory.stored;
}

/** The bytes n8n writes for a workflow memory (its toJSON). */
const bytesOf = (memory: WorkflowMemory) => JSON.stringify(memory.storedForm(() => undefined)).length;

describe('the memory kept per n8n line', () => {
	it('tells n8n 1.x by its node types: n8n 2.0 removed the Start node', () => {
		expect(isN8n1({ 'n8n-nodes-base.start': {}, 'n8n-nodes-base.set': {} })).toBe(true);
		expect(isN8n1({ 'n8n-nodes-base.set': {} })).toBe(false);
	});

	it('on n8n 2.x each trigger node keeps 50,000 transactions', () => {
		const memory = new WorkflowMemory(false);
		memory.absorb({ writer: 'other:1', nodes: { a: saved(51_000), b: saved(51_000) } });
		expect(memory.node('a').size).toBe(51_000);
		expect(memory.node('b').size).toBe(51_000);
		memory.node('a').advance(tx(100_000), 'COMPLETED');
		expect(memory.node('a').size).toBe(REMEMBERED_TRANSACTIONS);
	});

	it('on n8n 1.x a memory saved with 51,000 transactions is cut to the 4,000 most recently changed, under 50 KB at its largest with seven labels', () => {
		const memory = new WorkflowMemory(true);
		memory.absorb({ writer: 'other:1', nodes: { a: saved(51_000) } });
		const node = memory.node('a');
		expect(node.size).toBe(REMEMBERED_TRANSACTIONS_ON_N8N_1);
		expect(node.labelsOf(tx(50_999))).toEqual([LABELS[50_999 % LABELS.length]]);
		expect(node.labelsOf(tx(46_999))).toEqual([]);
		for (let index = 0; index < 80; index++) node.advance(tx(100_000 + index), 'COMPLETED');
		expect(node.size).toBe(4_080);
		expect(bytesOf(memory)).toBeLessThan(50_000);
	});

	it('on n8n 1.x the workflow\'s trigger nodes share the 4,000, a replaced node\'s memory included: two nodes keep 2,000 each', () => {
		const memory = new WorkflowMemory(true);
		memory.absorb({ writer: 'other:1', nodes: { deleted: saved(4_000) } });
		const node = memory.node('replacement');
		for (let index = 0; index < 2_100; index++) node.advance(tx(200_000 + index), 'COMPLETED');
		expect(memory.node('deleted').size).toBe(2_000);
		expect(node.size).toBeLessThanOrEqual(2_040);
		expect(bytesOf(memory)).toBeLessThan(50_000);
	});
});

describe('what a backstop poll shares with the Money Trigger', () => {
	it("says an event would not run when the named trigger node came with its status, or it is stale; another trigger node's memory does not count", () => {
		const memory = new WorkflowMemory(false);
		memory.node('a').advance(transactionHash('charge:CH-1'), 'COMPLETED');
		memory.node('b').advance(transactionHash('payout:PO-1'), 'COMPLETED');
		expect(memory.ran('a', 'charge', 'CH-1', 'COMPLETED')).toBe(true);
		expect(memory.ran('a', 'charge', 'CH-1', 'PENDING')).toBe(true);
		expect(memory.ran('a', 'charge', 'CH-1', 'REVERSED')).toBe(false);
		expect(memory.ran('a', 'payout', 'CH-1', 'COMPLETED')).toBe(false);
		expect(memory.ran('a', 'payout', 'PO-1', 'COMPLETED')).toBe(false);
		expect(memory.ran('c', 'charge', 'CH-1', 'COMPLETED')).toBe(false);
	});

	it("keeps each trigger's Production URL and node as noted in this process, a stored one only where none was noted", () => {
		const memory = new WorkflowMemory(false);
		memory.noteTrigger('Money Trigger', { url: 'https://new/webhook/x/money', node: 'a' });
		memory.absorb({ writer: 'other:1', nodes: {}, triggers: { 'Money Trigger': { url: 'https://old/webhook/x/money', node: 'a' }, Other: { url: 'https://old/webhook/y/money', node: 'b' }, Bad: { url: 1 } } });
		expect(memory.trigger('Money Trigger')).toEqual({ url: 'https://new/webhook/x/money', node: 'a' });
		expect(memory.trigger('Other')).toEqual({ url: 'https://old/webhook/y/money', node: 'b' });
		expect(memory.trigger('Bad')).toBeUndefined();
		expect(JSON.parse(JSON.stringify(memory.storedForm(() => undefined))).triggers).toEqual({
			'Money Trigger': { url: 'https://new/webhook/x/money', node: 'a' },
			Other: { url: 'https://old/webhook/y/money', node: 'b' },
		});
	});

	it('saves no checkpoint older than 30 days (a backstop deleted or turned off)', () => {
		const memory = new WorkflowMemory(false);
		memory.keepCheckpoint('gone', { at: Date.now() - 31 * 24 * 3600_000, state: {} });
		memory.keepCheckpoint('here', { at: Date.now(), state: {} });
		expect(Object.keys(JSON.parse(JSON.stringify(memory.storedForm(() => undefined))).backstops)).toEqual(['here']);
	});

	it("keeps the newest checkpoint of each backstop, in its own copies and from another process's", () => {
		const memory = new WorkflowMemory(false);
		const t = Date.now();
		memory.keepCheckpoint('poll', { at: t + 2, state: { cursors: { charge: 2 } } });
		memory.keepCheckpoint('poll', { at: t + 1, state: { cursors: { charge: 1 } } });
		memory.absorb({ writer: 'other:1', nodes: {}, backstops: { poll: { at: t + 1, state: {} }, other: { at: t + 5, state: { x: 1 } } } });
		expect(memory.checkpoint('poll')).toEqual({ at: t + 2, state: { cursors: { charge: 2 } } });
		expect(memory.checkpoint('other')).toEqual({ at: t + 5, state: { x: 1 } });
		memory.absorb({ writer: 'other:2', nodes: {}, backstops: { poll: { at: t + 3, state: { cursors: { charge: 3 } } } } });
		expect(memory.checkpoint('poll')?.at).toBe(t + 3);
		const copy = JSON.parse(JSON.stringify(memory.storedForm(() => undefined)));
		expect(copy.backstops).toEqual({ poll: { at: t + 3, state: { cursors: { charge: 3 } } }, other: { at: t + 5, state: { x: 1 } } });
		expect(JSON.parse(JSON.stringify(new WorkflowMemory(false).storedForm(() => undefined))).backstops).toBeUndefined();
	});
});
