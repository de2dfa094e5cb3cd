import type { IDataObject, IExecuteFunctions, INode, WorkflowExecuteMode } from 'n8n-workflow';

import { describeStop, Gate, type RunStop, walletFromAccount } from '../../../../../nodes/Money/helpers/create/gate';
import { NodeMemory } from '../../../../../nodes/Money/helpers/create/memory';
import { type CreateRow, identityOf } from '../../../../../nodes/Money/helpers/create/rows';
import { fieldError } from '../../../../../nodes/Money/helpers/validation';
import { callSettingsOf } from '../../../../../nodes/transport/request';

const node: INode = { id: 'n1', name: 'Pay', type: 'n8n-nodes-money.money', typeVersion: 1, position: [0, 0], parameters: {} };
const C1 = 'client c1 at https://api.example.com';
const C2 = 'client c2 at https://api.example.com';

interface Situation {
	mode?: WorkflowExecuteMode;
	/** The node's execution context (what a Retry brings back). */
	nodeContext?: IDataObject;
	runIndex?: number;
	parameters?: IDataObject;
	logged?: string[];
}

/** What the gate reads of n8n. */
function nodeRun({ mode = 'manual', nodeContext = {}, runIndex = 0, parameters = {}, logged = [] }: Situation = {}): IExecuteFunctions {
	return {
		getMode: () => mode,
		getNode: () => node,
		getNodeParameter: (name: string, _itemIndex: number, fallback?: unknown) => (name in parameters ? parameters[name] : fallback),
		getContext: () => nodeContext,
		getWorkflowDataProxy: () => ({ $thisRunIndex: runIndex }),
		logger: { info: (line: string) => logged.push(line) },
	} as unknown as IExecuteFunctions;
}

/** The context as a Retry gets it back: through the database, as JSON. */
const stored = (nodeContext: IDataObject) => JSON.parse(JSON.stringify(nodeContext)) as IDataObject;

/** A row as rows.ts reads it: a payout of 5000 XOF unless told, with the Business Reference given ('' none). */
function row(itemIndex: number, businessReference = '', body: IDataObject = { amount: 5000, currency: 'XOF' }): CreateRow {
	const reference: CreateRow['reference'] = businessReference === '' ? { kind: 'none' } : { kind: 'reference', value: businessReference };
	return { itemIndex, reference, businessReference, body, pin: '1234', options: {}, call: callSettingsOf({}), preview: false, identity: identityOf('payout', body, businessReference) };
}

/** A row that breaks a field rule: no body, its error. */
function broken(itemIndex: number, businessReference = ''): CreateRow {
	const error = fieldError(node, { parameter: 'amount', label: 'Amount', field: 'amount', rule: 'must be greater than 0' }, itemIndex);
	return { ...row(itemIndex, businessReference), body: undefined, error };
}

/** A gate over `rows` in a run of `context`, its memory the context's. */
function gateOf(context: IExecuteFunctions, rows: CreateRow[], { client = C1 as string | ReturnType<typeof fieldError>, replaysLostRun = false } = {}) {
	const memory = NodeMemory.of(context);
	const gate = typeof client === 'string' ? new Gate(context, 'payout', rows, memory, client, undefined, replaysLostRun) : new Gate(context, 'payout', rows, memory, '', client, replaysLostRun);
	gate.bind();
	return { gate, memory };
}

/** The refusal of each row under keys k0, k1, … */
const refusals = (gate: Gate, rows: CreateRow[]) => rows.map((each) => gate.refusalOf(each, `k${each.itemIndex}`));

describe('refusals of a create without a Business Reference', () => {
	it('refuses in a sub-workflow (mode integrated), naming the rule, before anything is sent, even with the requirement off', () => {
		const { gate } = gateOf(nodeRun({ mode: 'integrated', parameters: { requireBusinessReference: false } }), [row(0)]);
		const refusal = gate.refusalOf(row(0), 'key-1');
		expect(refusal?.message).toMatch(/^Business Reference \(idempotency-key\) is required in a sub-workflow \(rule "Sub-workflows need a Business Reference"\)/);
		expect(refusal?.context).toMatchObject({ attempted: false, itemIndex: 0, field: 'idempotency-key' });
	});

	it('refuses in a Retry replaying a lost run, and nowhere else; a row with a Business Reference goes', () => {
		const replay = gateOf(nodeRun({ mode: 'retry', parameters: { requireBusinessReference: false } }), [row(0)], { replaysLostRun: true }).gate;
		const refusal = replay.refusalOf(row(0), 'key-1');
		expect(refusal?.message).toBe('This Retry repeats a run that n8n lost in a crash; the payout was not sent');
		expect(refusal?.context.attempted).toBe(false);
		expect(replay.refusalOf(row(0, 'order-1'), 'key-1')).toBeUndefined();
		for (const mode of ['manual', 'trigger', 'webhook', 'retry'] as WorkflowExecuteMode[]) {
			expect(gateOf(nodeRun({ mode, parameters: { requireBusinessReference: false } }), [row(0)]).gate.refusalOf(row(0), 'key-1')).toBeUndefined();
		}
	});

	it('refuses in a production execution unless Require Business Reference is off; never in a manual run', () => {
		for (const mode of ['trigger', 'webhook', 'retry', 'cli'] as WorkflowExecuteMode[]) {
			const refusal = gateOf(nodeRun({ mode }), [row(0)]).gate.refusalOf(row(0), 'key-1');
			expect(refusal?.message).toContain('Require Business Reference');
			expect(refusal?.context).toMatchObject({ attempted: false, parameter: 'businessReference' });
		}
		expect(gateOf(nodeRun({ mode: 'manual' }), [row(0)]).gate.refusalOf(row(0), 'key-1')).toBeUndefined();
	});
});

describe('rows sent before in this execution, run again as another payment', () => {
	it('names each change of a paid row and says nothing was sent', () => {
		const changed = row(1, 'order-2', { amount: 5500, currency: 'XOF', account_number: 'WAL-XOF-2' });
		const { gate, memory } = gateOf(nodeRun({ mode: 'retry' }), [row(0, 'order-1'), changed]);
		memory.record('key-2', { amount: 5000, currency: 'XOF' }, { accepted: { reference: 'po_1' } }, memory.prior('payout', 'key-2'));
		const error = gate.refusalOf(changed, 'key-2');
		expect(error?.message).toBe('Not sent: item 2 was already paid in this execution with other values (amount 5000 → 5500, account_number none → WAL-XOF-2)');
		expect(error?.description).toContain('Nothing was sent');
		expect(error?.context).toMatchObject({ attempted: false, field: 'amount', idempotency_key: 'key-2', itemIndex: 1 });
	});

	it('refuses another payment reference document under a key sent before', () => {
		const document = (text: string) => ({ amount: 5000, currency: 'XOF', payment_reference: { ref_document: Buffer.from(text).toString('base64') } });
		const { gate, memory } = gateOf(nodeRun(), [row(0, 'order-1', document('%PDF-1.7 other'))]);
		memory.record('key-1', document('%PDF-1.7 first'), { uncertain: 'no answer in execution 1' }, memory.prior('payout', 'key-1'));
		const error = gate.refusalOf(row(0, 'order-1', document('%PDF-1.7 other')), 'key-1');
		expect(error?.message).toBe('Payment Reference Document (payment_reference.ref_document) is not the document this create was first sent with under its idempotency key');
		expect(error?.context).toMatchObject({ attempted: false, field: 'payment_reference.ref_document' });
		expect(gate.refusalOf(row(0, 'order-1', document('%PDF-1.7 first')), 'key-1')).toBeUndefined();
	});
});

describe('a run keeps the API client and Business References of its first run', () => {
	const retry = (nodeContext: IDataObject, runIndex = 0) => nodeRun({ mode: 'retry', nodeContext: stored(nodeContext), runIndex, parameters: { requireBusinessReference: false } });

	it('records them at the first run and lets every run that repeats them go', () => {
		const first: IDataObject = {};
		const rows = [row(0, 'A'), row(1)];
		expect(refusals(gateOf(nodeRun({ nodeContext: first }), rows).gate, rows)).toEqual([undefined, undefined]);
		expect(refusals(gateOf(retry(first), rows).gate, rows)).toEqual([undefined, undefined]);
		// Another run index (the next batch of a loop) is another run: it records its own.
		expect(refusals(gateOf(nodeRun({ nodeContext: first, runIndex: 1 }), [row(0, 'B')], { client: C2 }).gate, [row(0, 'B')])).toEqual([undefined]);
	});

	it('refuses a repeat sent to another API client, naming both, before any request', () => {
		const first: IDataObject = {};
		gateOf(nodeRun({ nodeContext: first }), [row(0, 'A')]);
		const refusal = gateOf(retry(first), [row(0, 'A')], { client: C2 }).gate.refusalOf(row(0, 'A'), 'k0');
		expect(refusal?.message).toBe(
			'Not sent: this run of the node is repeated with another identity than its first run in this execution: the credential now goes to the Money API client c2 at https://api.example.com, the run first went to client c1 at https://api.example.com',
		);
		expect(refusal?.description).toMatch(/^Nothing was sent: to finish this execution, put back the credential .* then Retry; .*docs\/idempotency\.md, "A run keeps its API client and Business References"/);
		expect(refusal?.context).toMatchObject({ attempted: false, field: 'credential', itemIndex: 0 });
	});

	it('refuses every row of a repeat whose Business References changed, naming the rows', () => {
		const first: IDataObject = {};
		gateOf(nodeRun({ nodeContext: first }), [row(0), row(1, 'A'), row(2, 'B')]);
		const rows = [row(0, 'order-1'), row(1, 'A'), row(2)];
		const [, second, third] = refusals(gateOf(retry(first), rows).gate, rows);
		expect(third?.message).toBe(
			'Not sent: this run of the node is repeated with another identity than its first run in this execution: item 1\'s Business Reference is now "order-1", was none; item 3\'s Business Reference is now none, was "B"',
		);
		expect(third?.context).toMatchObject({ attempted: false, field: 'idempotency-key', itemIndex: 2 });
		expect(second?.message).toBe(third?.message);
	});

	it('names five changed Business References and counts the rest, every one in details', () => {
		const first: IDataObject = {};
		const before = Array.from({ length: 7 }, (_, index) => row(index));
		gateOf(nodeRun({ nodeContext: first }), before);
		const rows = before.map((each) => row(each.itemIndex, `order-${each.itemIndex + 1}`));
		const refusal = gateOf(retry(first), rows).gate.refusalOf(rows[0], 'k0');
		expect(refusal?.message).toMatch(/item 5's Business Reference is now "order-5", was none and 2 more$/);
		expect(refusal?.message).not.toContain('item 6');
		expect((refusal?.context.details as IDataObject).business_references).toHaveLength(7);
	});
});

describe('the order of refusals', () => {
	it("a run-identity refusal comes before a row's own field error", () => {
		const first: IDataObject = {};
		gateOf(nodeRun({ nodeContext: first }), [row(0, 'A')]);
		const refusal = gateOf(nodeRun({ nodeContext: stored(first) }), [broken(0, 'A')], { client: C2 }).gate.refusalOf(broken(0, 'A'), 'k0');
		expect(refusal?.message).toMatch(/^Not sent: this run of the node is repeated with another identity/);
		expect(refusal?.context.field).toBe('credential');
	});

	it('a credential that cannot be read fails every row with its error, a broken row too', () => {
		const unreadable = fieldError(node, { parameter: 'credential', label: 'Credential', field: 'credential', rule: 'cannot be read' }, 0);
		const rows = [row(0, 'A'), broken(1)];
		expect(refusals(gateOf(nodeRun(), rows, { client: unreadable }).gate, rows)).toEqual([unreadable, unreadable]);
	});

	it("a row's field error comes before the Business References refusal, which the other rows get", () => {
		const rows = [row(0, 'A', { amount: 1000, currency: 'XOF' }), row(1, 'A', { amount: 2000, currency: 'XOF' }), broken(2, 'A')];
		const [first, second, third] = refusals(gateOf(nodeRun(), rows).gate, rows);
		expect(third?.message).toBe('Amount (amount) must be greater than 0');
		expect(first?.message).toBe('Payout run refused, nothing was sent: Business Reference "A" is shared by items 1, 2 and 3, whose payouts differ');
		expect(first?.context).toMatchObject({ attempted: false, field: 'idempotency-key', itemIndex: 0, details: { shared: [{ business_reference: 'A', items: [1, 2, 3] }] } });
		expect(second?.message).toBe(first?.message);
	});

	it('the Business References refusal comes before Require Business Reference: a reference that is only whitespace is named as such', () => {
		const blank: CreateRow = { ...row(1), reference: { kind: 'whitespace' } };
		const rows = [row(0, 'A'), blank];
		const [first, second] = refusals(gateOf(nodeRun({ mode: 'trigger' }), rows).gate, rows);
		expect(second?.message).toBe('Payout run refused, nothing was sent: the Business Reference is only whitespace in item 2');
		expect(first?.message).toBe(second?.message);
	});
});

describe('Check Balance First', () => {
	const WALLET = { number: 'WAL-XOF-1', value: 10_000, currency: 'XOF' };
	const keys = (rows: CreateRow[]) => rows.map((each) => `k${each.itemIndex}`);

	it('totals the payouts that debit the primary wallet and refuses the run with the shortfall', async () => {
		const rows = [
			row(0, '', { amount: 6000, currency: 'XOF' }),
			row(1, '', { amount: 3000, currency: 'XOF', account_number: 'WAL-XOF-1' }),
			row(2, '', { amount: 2000, currency: 'XOF', account_number: ' ' }),
		];
		const { gate } = gateOf(nodeRun(), rows);
		await gate.checkBalance(rows, keys(rows), async () => WALLET);
		for (const each of rows) {
			expect(gate.holdOf(each)).toMatchObject({
				message: 'Payout run refused, nothing was sent: 3 payouts total 11000 XOF, the wallet WAL-XOF-1 has 10000 XOF available, short by 1000 XOF',
				context: {
					attempted: false,
					itemIndex: each.itemIndex,
					error_code: 'RUN_EXCEEDS_BALANCE',
					details: { currency: 'XOF', total: 11_000, available_balance: 10_000, shortfall: 1000, account_number: 'WAL-XOF-1', already_paid: 0 },
				},
			});
		}
	});

	it('leaves out other currencies, other wallets and rows that are not sent', async () => {
		const logged: string[] = [];
		const rows = [
			row(0, '', { amount: 10_000, currency: 'XOF' }),
			row(1, '', { amount: 50_000, currency: 'XAF' }),
			row(2, '', { amount: 50_000, currency: 'XOF', account_number: 'WAL-XOF-2' }),
			broken(3),
		];
		const { gate } = gateOf(nodeRun({ logged }), rows);
		await gate.checkBalance(rows, keys(rows), async () => WALLET);
		expect(rows.map((each) => gate.holdOf(each))).toEqual([undefined, undefined, undefined, undefined]);
		expect(logged).toEqual([expect.stringContaining('Check Balance First covers XOF payouts from wallet WAL-XOF-1 only; 2 payouts')]);
	});

	it('does not count the rows this execution already paid, and reads no account when nothing is left to pay', async () => {
		const nodeContext: IDataObject = {};
		const rows = [row(0, '', { amount: 8000, currency: 'XOF' }), row(1, '', { amount: 6000, currency: 'XOF' }), row(2, '', { amount: 6000, currency: 'XOF' })];
		const { gate, memory } = gateOf(nodeRun({ nodeContext }), rows);
		memory.record('k0', { amount: 8000, currency: 'XOF' }, { accepted: { reference: 'po_1' } }, memory.prior('payout', 'k0'));
		await gate.checkBalance(rows, keys(rows), async () => WALLET);
		expect(gate.holdOf(rows[1])?.message).toBe(
			'Payout run refused, nothing was sent: 2 payouts total 12000 XOF, the wallet WAL-XOF-1 has 10000 XOF available, short by 2000 XOF (1 payout this execution already paid is not counted)',
		);
		const readAccount = jest.fn(async () => WALLET);
		await gateOf(nodeRun({ nodeContext }), rows.slice(0, 1)).gate.checkBalance(rows.slice(0, 1), ['k0'], readAccount);
		expect(readAccount).not.toHaveBeenCalled();
	});

	it('counts a payment this execution already paid once, however many rows list it', async () => {
		const nodeContext: IDataObject = {};
		const rows = [row(0, 'ord-7', { amount: 8000, currency: 'XOF' }), row(1, 'ord-7', { amount: 8000, currency: 'XOF' }), row(2, 'ord-8', { amount: 12_000, currency: 'XOF' })];
		const { gate, memory } = gateOf(nodeRun({ nodeContext }), rows);
		memory.record('k-ord-7', { amount: 8000, currency: 'XOF' }, { accepted: { reference: 'po_7' } }, memory.prior('payout', 'k-ord-7'));
		await gate.checkBalance(rows, ['k-ord-7', 'k-ord-7', 'k-ord-8'], async () => WALLET);
		expect(gate.holdOf(rows[2])).toMatchObject({
			message: 'Payout run refused, nothing was sent: 1 payouts total 12000 XOF, the wallet WAL-XOF-1 has 10000 XOF available, short by 2000 XOF (1 payout this execution already paid is not counted)',
			context: { details: expect.objectContaining({ already_paid: 1 }) },
		});
	});

	it('counts rows under one key (one payment listed twice, its Business Reference shared) once', async () => {
		const rows = [row(0, 'ord-7', { amount: 6000, currency: 'XOF' }), row(1, 'ord-7', { amount: 6000, currency: 'XOF' }), row(2, 'ord-8', { amount: 3000, currency: 'XOF' })];
		const { gate } = gateOf(nodeRun(), rows);
		await gate.checkBalance(rows, ['k-ord-7', 'k-ord-7', 'k-ord-8'], async () => WALLET);
		expect(rows.map((each) => gate.holdOf(each))).toEqual([undefined, undefined, undefined]);
		const over = [...rows, row(3, 'ord-9', { amount: 2000, currency: 'XOF' })];
		const { gate: overGate } = gateOf(nodeRun(), over);
		await overGate.checkBalance(over, ['k-ord-7', 'k-ord-7', 'k-ord-8', 'k-ord-9'], async () => WALLET);
		expect(overGate.holdOf(over[0])?.message).toBe('Payout run refused, nothing was sent: 3 payouts total 11000 XOF, the wallet WAL-XOF-1 has 10000 XOF available, short by 1000 XOF');
	});

	it('refuses the run, sending nothing, when the account cannot be read', async () => {
		const rows = [row(0)];
		const { gate } = gateOf(nodeRun(), rows);
		await gate.checkBalance(rows, keys(rows), async () => 'the account could not be read (HTTP 403)');
		expect(gate.holdOf(rows[0])).toMatchObject({ message: 'Check Balance First: the account could not be read (HTTP 403); nothing was sent', context: { attempted: false } });
	});

	it('reads the primary wallet from the account answer', () => {
		expect(walletFromAccount({ account: { number: 'WAL-1', balance: { value: 5, currency: 'XOF' } } })).toEqual({ number: 'WAL-1', value: 5, currency: 'XOF' });
		expect(walletFromAccount({ account: { number: 'WAL-1' } })).toBeUndefined();
		expect(walletFromAccount({})).toBeUndefined();
	});
});

/** What the sandbox's LIMIT_EXCEEDED gives of the caps. */
const CAP_DETAILS = { daily_cap: 20_000, daily_used: 19_500, monthly_cap: 500_000, monthly_used: 19_500, currency: 'XOF' };

const stop = (overrides: Partial<RunStop>): RunStop => ({ kind: 'daily_cap', itemIndex: 11, errorCode: 'LIMIT_EXCEEDED', currency: 'XOF', details: CAP_DETAILS, ...overrides });

describe('run stops', () => {
	it('hold back the later rows of the same currency and wallet, naming the first stop', () => {
		const { gate } = gateOf(nodeRun(), []);
		gate.recordStop({ currency: 'XOF' }, stop({}));
		expect(gate.holdOf(row(12))).toMatchObject({
			message: 'Not sent: the daily payout cap of 20000 XOF was reached at item 12 (19500 XOF already used) (LIMIT_EXCEEDED)',
			context: { attempted: false, itemIndex: 12, error_code: 'LIMIT_EXCEEDED', httpCode: null, details: CAP_DETAILS },
		});
		expect(gate.holdOf(row(12, '', { amount: 5000, currency: 'XAF' }))).toBeUndefined();
		expect(gate.holdOf(row(12, '', { amount: 5000, currency: 'XOF', account_number: 'WAL-2' }))).toBeUndefined();
		gate.recordStop({ currency: 'XOF' }, stop({ itemIndex: 20 }));
		expect(gate.holdOf(row(21))?.message).toContain('at item 12');
	});

	it('name the cap, or the shortfall of each payout', () => {
		expect(describeStop(stop({}))).toBe('the daily payout cap of 20000 XOF was reached at item 12 (19500 XOF already used)');
		expect(describeStop(stop({ kind: 'monthly_cap', details: { monthly_cap: 9 } }))).toBe('the monthly payout cap of 9 XOF was reached at item 12');
		const funds = stop({ kind: 'insufficient_funds', itemIndex: 4, details: { available_balance: 700 } });
		expect(describeStop(funds, 1000)).toBe('the wallet had 700 XOF available at item 5; this payout of 1000 XOF is short by 300 XOF');
		expect(describeStop(funds, 500)).toBe('the wallet had 700 XOF available at item 5');
		expect(describeStop(stop({ kind: 'insufficient_funds', details: {} }))).toBe('the wallet balance ran out at item 12');
	});

	it('say what to do', () => {
		const adviceAfter = (kind: RunStop['kind']) => {
			const { gate } = gateOf(nodeRun(), []);
			gate.recordStop({ currency: 'XOF' }, stop({ kind }));
			return gate.holdOf(row(12))?.description;
		};
		expect(adviceAfter('daily_cap')).toContain('next UTC day');
		expect(adviceAfter('monthly_cap')).toContain('next UTC month');
		expect(adviceAfter('insufficient_funds')).toContain('Top up');
	});
});
