import { createHash } from 'node:crypto';

import type { IDataObject, IExecuteFunctions, INode, WorkflowExecuteMode } from 'n8n-workflow';

import { apiClientOf, businessReferenceKey, movementChanges, NodeMemory, stableStringify, toolCallKey, uuidFromText } from '../../../../../nodes/Money/helpers/create/memory';

const node: INode = { id: 'n1', name: 'Pay', type: 'n8n-nodes-money.money', typeVersion: 1, position: [0, 0], parameters: {} };
const UUID_V5 = /^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

interface Situation {
	mode?: WorkflowExecuteMode;
	/** The node's execution context as the execution brought it (n8n restores it on a Retry, not after a crash). */
	nodeContext?: IDataObject;
	/** Runs of this node n8n's run data already holds when this run starts. */
	earlierRuns?: number;
	/** n8n's run data has the node's key with no run left: a Retry dropped the failed (or crashed) run. */
	droppedRun?: boolean;
}

/** What the memory reads of n8n; each call is a new node run of the same execution (same context object). */
function nodeRun({ mode = 'trigger', nodeContext = {}, earlierRuns = 0, droppedRun = false }: Situation = {}): IExecuteFunctions {
	return {
		getMode: () => mode,
		getNode: () => node,
		getContext: () => nodeContext,
		getWorkflowDataProxy: () => ({
			$thisRunIndex: earlierRuns,
			$: (name: string) => ({ isExecuted: name === node.name && (earlierRuns > 0 || droppedRun) }),
		}),
	} as unknown as IExecuteFunctions;
}

/** The context as a Retry gets it back: through the database, as JSON. */
const stored = (nodeContext: IDataObject) => JSON.parse(JSON.stringify(nodeContext)) as IDataObject;

describe('the API client a create goes to', () => {
	it('is the client id at the base URL, whatever the secrets (a rotated secret is the same client)', () => {
		const named = apiClientOf({ authentication: 'clientCredentials', baseUrl: 'https://api.example.com/', clientId: 'client-7', clientSecret: 's1', hmacSecret: 'h1' });
		expect(named).toBe('client client-7 at https://api.example.com');
		expect(apiClientOf({ authentication: 'clientCredentials', baseUrl: 'https://api.example.com', clientId: 'client-7', clientSecret: 's2', hmacSecret: 'h2' })).toBe(named);
		expect(apiClientOf({ authentication: 'clientCredentials', baseUrl: 'https://api.example.com', clientId: 'client-8' })).not.toBe(named);
		expect(apiClientOf({ authentication: 'clientCredentials', baseUrl: 'https://other.example.com', clientId: 'client-7' })).not.toBe(named);
	});

	it('names an API key by a fingerprint, never the key', () => {
		const apiKey = 'live-key-0123456789abcdef';
		const named = apiClientOf({ authentication: 'apiKey', baseUrl: 'https://api.example.com', apiKey });
		expect(named).toMatch(/^API key [0-9a-f]{16} at https:\/\/api\.example\.com$/);
		expect(named).not.toContain(apiKey.slice(-8));
		expect(apiClientOf({ authentication: 'apiKey', baseUrl: 'https://api.example.com', apiKey: `${apiKey}x` })).not.toBe(named);
	});
});

describe('idempotency keys (D4)', () => {
	const anchored = () => NodeMemory.of(nodeRun({ nodeContext: { money: { anchor: 'anchor-1' } } }));

	it('without a Business Reference, depends on the run anchor, run, item and resource only: a row keeps its key whatever its values become', () => {
		const key = anchored().keyOf('payout', '', 0, 0);
		expect(key).toMatch(UUID_V5);
		expect(key).toBe(uuidFromText(stableStringify(['n8n-nodes-money/idempotency/v1', 'run', 'payout', 'anchor-1', 0, 0])));
		expect(NodeMemory.of(nodeRun({ nodeContext: { money: { anchor: 'anchor-2' } } })).keyOf('payout', '', 0, 0)).not.toBe(key);
		expect(anchored().keyOf('payout', '', 1, 0)).not.toBe(key);
		expect(anchored().keyOf('payout', '', 0, 1)).not.toBe(key);
		expect(anchored().keyOf('charge', '', 0, 0)).not.toBe(key);
	});

	it("of an agent's call without a Business Reference, depends on the execution's anchor and the payment it asks for, not on its place", () => {
		const movement = [700, 'XOF', 'platform', 'gm_account:GM-1', null, null];
		const key = toolCallKey('anchor-1', 'payout', movement);
		expect(key).toMatch(UUID_V5);
		expect(toolCallKey('anchor-1', 'payout', [...movement])).toBe(key);
		expect(toolCallKey('anchor-1', 'payout', [701, ...movement.slice(1)])).not.toBe(key);
		expect(toolCallKey('anchor-2', 'payout', movement)).not.toBe(key);
		expect(toolCallKey('anchor-1', 'charge', movement)).not.toBe(key);
	});

	it('depends only on resource and business reference when one is given', () => {
		const key = businessReferenceKey('payout', 'order-1');
		expect(key).toMatch(UUID_V5);
		expect(key).toBe(uuidFromText(stableStringify(['n8n-nodes-money/idempotency/v1', 'reference', 'payout', 'order-1'])));
		expect(anchored().keyOf('payout', 'order-1', 3, 9)).toBe(key);
		expect(NodeMemory.of(nodeRun()).keyOf('payout', 'order-1', 0, 0)).toBe(key);
		expect(businessReferenceKey('payout', 'order-2')).not.toBe(key);
		expect(businessReferenceKey('charge', 'order-1')).not.toBe(key);
	});

	it('serialises canonically', () => {
		expect(stableStringify({ b: 1, a: [{ d: 2, c: undefined }] })).toBe('{"a":[{"d":2}],"b":1}');
		expect(uuidFromText('x')).toBe(uuidFromText('x'));
	});

	describe('the run anchor', () => {
		it('is made once per execution and kept in the node context, which a Retry brings back', () => {
			const nodeContext: IDataObject = {};
			const memory = NodeMemory.of(nodeRun({ nodeContext }));
			expect(memory.hasAnchor).toBe(false);
			memory.makeAnchor();
			const key = memory.keyOf('payout', '', 0, 0);
			const again = NodeMemory.of(nodeRun({ nodeContext }));
			again.makeAnchor();
			expect(again.keyOf('payout', '', 0, 0)).toBe(key);
			const retried = NodeMemory.of(nodeRun({ mode: 'retry', nodeContext: stored(nodeContext) }));
			expect(retried.hasAnchor).toBe(true);
			expect(retried.keyOf('payout', '', 0, 0)).toBe(key);
		});

		it('is not the execution id nor the node id, which repeat on another n8n instance with the same imported workflow', () => {
			const keyOfFresh = () => {
				const memory = NodeMemory.of(nodeRun());
				memory.makeAnchor();
				return memory.keyOf('payout', '', 0, 0);
			};
			expect(keyOfFresh()).not.toBe(keyOfFresh());
		});

		it('of a preview is dropped with it', () => {
			const nodeContext: IDataObject = {};
			const preview = NodeMemory.of(nodeRun({ nodeContext })).copy();
			preview.makeAnchor();
			preview.record('k1', { amount: 1 }, { accepted: { reference: 'po_1' } }, preview.prior('payout', 'k1'));
			expect(NodeMemory.of(nodeRun({ nodeContext })).hasAnchor).toBe(false);
			expect(NodeMemory.of(nodeRun({ nodeContext })).prior('payout', 'k1').acknowledged).toBeUndefined();
		});
	});
});

describe('crash recovery: a Retry replaying a run n8n lost', () => {
	const replaysLostRun = (situation: Situation) => {
		const context = nodeRun(situation);
		return NodeMemory.of(context).recordLostRun(context);
	};

	it("is recognised from the node's own run data, whatever feeds the node (IF false branch, loop output)", () => {
		// n8n kept a placeholder or "crashed" run of the node, and the context came back empty.
		expect(replaysLostRun({ mode: 'retry', earlierRuns: 1 })).toBe(true);
		// The crashed run was the last node's and the Retry dropped it: only the key is left.
		expect(replaysLostRun({ mode: 'retry', droppedRun: true })).toBe(true);
	});

	it('is not a node that never ran before the crash (a sibling branch crashed), nor a Retry whose context came back', () => {
		expect(replaysLostRun({ mode: 'retry' })).toBe(false);
		const saved: IDataObject = {};
		replaysLostRun({ mode: 'trigger', nodeContext: saved });
		expect(replaysLostRun({ mode: 'retry', droppedRun: true, nodeContext: stored(saved) })).toBe(false);
		for (const mode of ['manual', 'trigger', 'webhook', 'cli', 'integrated'] as WorkflowExecuteMode[]) {
			expect(replaysLostRun({ mode, earlierRuns: 3 })).toBe(false);
		}
	});

	it('keeps its verdict for every later run of the execution: the next batches, Retry On Fail, a Retry of the Retry', () => {
		const nodeContext: IDataObject = {};
		expect(replaysLostRun({ mode: 'retry', earlierRuns: 1, nodeContext })).toBe(true);
		// Batch 2 of the replay: the node has since made its anchor.
		NodeMemory.of(nodeRun({ nodeContext })).makeAnchor();
		expect(replaysLostRun({ mode: 'retry', earlierRuns: 2, nodeContext })).toBe(true);
		expect(replaysLostRun({ mode: 'retry', earlierRuns: 2, nodeContext: stored(nodeContext) })).toBe(true);

		const fresh: IDataObject = {};
		expect(replaysLostRun({ mode: 'trigger', nodeContext: fresh })).toBe(false);
		// That context saved with a failure, then a Retry: the run data of the first run is there, nothing was lost.
		expect(replaysLostRun({ mode: 'retry', droppedRun: true, nodeContext: stored(fresh) })).toBe(false);
	});
});

describe("a run's identity", () => {
	const identity = (client: string, references: Record<string, string | null>) => ({ client, references });

	it('is recorded once, by the first run of a run index that sends, and given back to every run that repeats it, through a Retry', () => {
		const nodeContext: IDataObject = {};
		const first = identity('client c1 at https://api.example.com', { 0: 'A', 1: null });
		const memory = NodeMemory.of(nodeRun({ nodeContext }));
		expect(memory.firstIdentity(0)).toBeUndefined();
		memory.bindIdentity(0, first);
		memory.bindIdentity(0, identity('client c9 at https://api.example.com', {}));
		const repeat = NodeMemory.of(nodeRun({ mode: 'retry', nodeContext: stored(nodeContext) }));
		expect(repeat.firstIdentity(0)).toEqual(first);
		// Another run index (the next batch of a loop) is another run: it records its own.
		expect(repeat.firstIdentity(1)).toBeUndefined();
	});
});

/** What a create sent under each key: a resend repeats it. */
describe('what a create sent under each key', () => {
	const first: IDataObject = {
		amount: 5000,
		currency: 'XOF',
		beneficiary_identifier: { identifier: 'GM-1002', type: 'gm_account' },
		channel: 'psp-a-tg',
		message: 'Run 41',
		payment_reference: { ref_number: 'INV-1', ref_document: Buffer.from('%PDF-1.7 receipt').toString('base64') },
		metadata: { sent_at: '1700000000000' },
	};
	const retried: IDataObject = { ...first, message: 'Run 42', metadata: { sent_at: '1700000009999' } };

	/** A memory over a node context, and the memory a Retry of the execution gets back. */
	function memories() {
		const nodeContext: IDataObject = {};
		return { memory: NodeMemory.of(nodeRun({ nodeContext })), afterRetry: () => NodeMemory.of(nodeRun({ mode: 'retry', nodeContext: stored(nodeContext) })), nodeContext };
	}

	const uncertain = { uncertain: 'no answer in execution 7' };
	const accepted = { accepted: { reference: 'po_1' } };

	it("gives a resend the first body, field for field, with the current item's identical document", () => {
		const { memory, afterRetry } = memories();
		expect(memory.prior('payout', 'k1', first).body).toBe(first);
		memory.record('k1', first, uncertain, memory.prior('payout', 'k1'));
		const again = afterRetry().prior('payout', 'k1', retried).body;
		expect(again).toEqual(first);
		expect(JSON.stringify(again)).toBe(JSON.stringify(first));
	});

	it('keeps a document by its digest only, and refuses to resend another document', () => {
		const { memory, afterRetry, nodeContext } = memories();
		memory.record('k1', first, uncertain, memory.prior('payout', 'k1'));
		const kept = JSON.stringify(nodeContext);
		const document = (first.payment_reference as IDataObject).ref_document as string;
		expect(kept).not.toContain(document);
		expect(kept).toContain(createHash('sha256').update(document).digest('hex'));
		const otherDocument = { ...retried, payment_reference: { ref_number: 'INV-1', ref_document: Buffer.from('%PDF-1.7 other').toString('base64') } };
		expect(afterRetry().prior('payout', 'k1', otherDocument)).toMatchObject({ otherDocument: true, body: otherDocument });
		expect(afterRetry().prior('payout', 'k1', retried).otherDocument).toBe(false);
	});

	it('sends the current body when the money it moves differs (a Business Reference with another amount: the API is to refuse it)', () => {
		const { memory } = memories();
		memory.record('k1', first, uncertain, memory.prior('payout', 'k1'));
		const otherAmount = { ...first, amount: 5001 };
		expect(memory.prior('payout', 'k1', otherAmount)).toMatchObject({ body: otherAmount, changes: [] });
	});

	it('records nothing of a refusal, so a corrected row goes out corrected', () => {
		const { memory } = memories();
		memory.record('k1', first, 'refused', memory.prior('payout', 'k1'));
		expect(memory.prior('payout', 'k1', retried)).toEqual({ body: retried, changes: [], otherDocument: false, firstBody: false });
	});

	it('puts back what the key held when a send is refused, the in-flight hold included', () => {
		const { memory } = memories();
		memory.record('k1', first, uncertain, memory.prior('payout', 'k1'));
		const prior = memory.prior('payout', 'k1', { ...first, amount: 5001 });
		memory.sending('k1', { ...first, amount: 5001 }, prior, 'no answer in execution 8');
		expect(memory.prior('payout', 'k1').uncertain).toBe('no answer in execution 7');
		memory.record('k1', { ...first, amount: 5001 }, 'refused', prior);
		expect(memory.prior('payout', 'k1', retried)).toMatchObject({ uncertain: 'no answer in execution 7', body: first });
		const fresh = memory.prior('payout', 'k2', first);
		memory.sending('k2', first, fresh, 'no answer in execution 8');
		expect(memory.prior('payout', 'k2').uncertain).toBe('no answer in execution 8');
		memory.record('k2', first, 'refused', fresh);
		expect(memory.prior('payout', 'k2')).toEqual({ changes: [], otherDocument: false, firstBody: false });
	});

	it('never forgets a body that went unanswered: a refusal after it leaves it', () => {
		const { memory, afterRetry } = memories();
		memory.record('k1', first, uncertain, memory.prior('payout', 'k1'));
		const later = afterRetry();
		later.record('k1', { ...first, amount: 5001 }, 'refused', later.prior('payout', 'k1'));
		expect(later.prior('payout', 'k1', retried)).toMatchObject({ uncertain: 'no answer in execution 7', body: first });
	});

	it('does not send other values under the key of a row the API accepted: it names what changed', () => {
		const { memory, afterRetry } = memories();
		memory.record('k1', first, accepted, memory.prior('payout', 'k1'));
		const otherWallet = { ...retried, account_number: 'WAL-XOF-2', amount: 5500 };
		expect(afterRetry().prior('payout', 'k1', otherWallet)).toMatchObject({
			acknowledged: { reference: 'po_1' },
			changes: [
				{ field: 'amount', before: 5000, now: 5500 },
				{ field: 'account_number', before: null, now: 'WAL-XOF-2' },
			],
		});
	});

	it('lists the fields of the movement that changed, by their API names (never the free text)', () => {
		expect(movementChanges('charge', { amount: 1, payer_identifier: { identifier: 'GM-1', type: 'gm_account' } }, { amount: 1, payer_identifier: { identifier: 'GM-2', type: 'gm_account' }, payer_account_type: 'Client', message: 'x' })).toEqual([
			{ field: 'payer_identifier', before: { identifier: 'GM-1', type: 'gm_account' }, now: { identifier: 'GM-2', type: 'gm_account' } },
			{ field: 'payer_account_type', before: null, now: 'Client' },
		]);
	});

	describe('an unacknowledged send (uncertain)', () => {
		it('says what it got and in which execution, through a Retry', () => {
			const { memory, afterRetry } = memories();
			memory.record('k1', first, { uncertain: 'HTTP 503 in execution 7' }, memory.prior('payout', 'k1'));
			expect(memory.prior('payout', 'k1').uncertain).toBe('HTTP 503 in execution 7');
			expect(afterRetry().prior('payout', 'k1').uncertain).toBe('HTTP 503 in execution 7');
		});

		it('keeps the first one: a later unanswered send of the key, with another body, does not replace it', () => {
			const { memory, afterRetry } = memories();
			memory.record('k1', first, uncertain, memory.prior('payout', 'k1'));
			const later = afterRetry();
			later.record('k1', { ...first, amount: 5001 }, { uncertain: 'HTTP 200 in execution 8' }, later.prior('payout', 'k1'));
			expect(later.prior('payout', 'k1')).toMatchObject({ uncertain: 'no answer in execution 7' });
			expect(later.prior('payout', 'k1', { ...first, amount: 5001 }).body).toEqual({ ...first, amount: 5001, payment_reference: expect.any(Object) });
		});

		it('is none once the API acknowledged the key, and none for a key never sent', () => {
			const { memory } = memories();
			memory.record('k1', first, uncertain, memory.prior('payout', 'k1'));
			memory.record('k1', first, accepted, memory.prior('payout', 'k1'));
			expect(memory.prior('payout', 'k1')).toMatchObject({ acknowledged: { reference: 'po_1' }, changes: [], otherDocument: false });
			expect(memory.prior('payout', 'k1')).not.toHaveProperty('uncertain');
			expect(memory.prior('payout', 'k2')).toEqual({ changes: [], otherDocument: false, firstBody: false });
		});
	});
});

describe("a run's memory as 1.0.0 stored it with the execution", () => {
	// The layout 1.0.0 wrote (its sending/accepted/failed): an entry acknowledged, one left uncertain, and one
	// whose send never went out (a cancel before it), with neither.
	const body = { amount: 5000, currency: 'XOF', beneficiary_identifier: { identifier: 'GM-1', type: 'gm_account' }, channel: 'platform', message: 'first' };
	const saved = {
		money: {
			anchor: '0b6c3c3e-1f0a-4c55-9a3e-2a7d1c3b9f10',
			lostRun: false,
			runs: { 0: { client: 'client c1 at https://api.example.com', references: { 0: 'a', 1: 'b', 2: null } } },
			sent: { ka: { body, accepted: { reference: 'po_1', status: 'PENDING' } }, kb: { body, uncertain: 'no answer in execution 7' }, kc: { body } },
		},
	};

	it('loads: a Retry reads each key as 1.0.0 left it, and the run keeps its identity and anchor', () => {
		const context = nodeRun({ mode: 'retry', nodeContext: stored(saved), earlierRuns: 0, droppedRun: true });
		const memory = NodeMemory.of(context);
		const again = { ...body, message: 'evaluated again' };
		expect(memory.recordLostRun(context)).toBe(false);
		expect(memory.hasAnchor).toBe(true);
		expect(memory.firstIdentity(0)?.references).toEqual({ 0: 'a', 1: 'b', 2: null });
		expect(memory.prior('payout', 'ka', again)).toMatchObject({ acknowledged: { reference: 'po_1' }, changes: [], body });
		expect(memory.prior('payout', 'kb', again)).toMatchObject({ uncertain: 'no answer in execution 7', body });
		const neither = memory.prior('payout', 'kc', again);
		expect(neither).not.toHaveProperty('acknowledged');
		expect(neither).not.toHaveProperty('uncertain');
		memory.record('kc', again, 'refused', neither);
		expect(memory.prior('payout', 'kc', again).body).toEqual(body);
	});
});
