import type { IConnections, IDataObject, INode } from 'n8n-workflow';

import { buildWorkflow, CREDENTIAL_ID, CREDENTIAL_TYPE, credentialFromSandbox, moneyNode, retryExecution, type RunResult, runWorkflow } from '../../harness/engine';
import { useSandboxEngine } from './setup';

/**
 * Approved Plan (docs/idempotency.md, "Approved Plan"): a payout run pays exactly the plan a person
 * approved, or nothing. Each workflow is a sheet previewed, a step standing for the person who
 * approves it, the sheet read again and paid with Approved Plan set to the preview's plan id.
 */

const env = useSandboxEngine({ nodeTypes: ['n8n-nodes-base.set', 'n8n-nodes-base.splitOut'], credential: { velocityLimit: 1000 } });
const SECOND_CLIENT = 'second-client';
const APPROVED_PLAN = "={{ $('Preview').first().json.plan_id }}";

beforeAll(() => {
	const second = env.sb.info.otherClients[0];
	env.engine.credentials.set(SECOND_CLIENT, CREDENTIAL_TYPE, credentialFromSandbox({ ...env.sb.info, ...second }, { velocityLimit: 1000 }));
});

beforeEach(async () => {
	await env.sb.control.updateClient(env.sb.info.clientId, { balance: 100_000_000, limits: { velocityLimit: 1000 } });
	await env.sb.control.updateClient(env.sb.info.otherClients[0].clientId, { balance: 100_000_000, limits: { velocityLimit: 1000 } });
	await env.sb.control.resetCounters();
});

interface Row {
	ref: string;
	amount: number;
	identifier?: string;
}

let runs = 0;
/** Rows of a sheet with Business References of their own test. */
function sheet(...entries: Array<[string, number, string?]>): Row[] {
	runs++;
	return entries.map(([ref, amount, identifier]) => ({ ref: ref === '' ? '' : `approval-${Date.now()}-${runs}-${ref}`, amount, ...(identifier ? { identifier } : {}) }));
}

const node = (name: string, type: string, parameters: IDataObject, extra: Partial<INode> = {}): INode => ({ id: name, name, type, typeVersion: type.endsWith('.set') ? 3.4 : 1, position: [0, 0], parameters: parameters as INode['parameters'], ...extra });

/** A sheet read once (one item holding the rows), then one item per row. */
const sheetNodes = (name: string, rows: Row[]): INode[] => [
	node(name, 'n8n-nodes-base.set', { mode: 'raw', jsonOutput: JSON.stringify({ rows }), options: {} }, { executeOnce: true }),
	node(`${name}, one item per row`, 'n8n-nodes-base.splitOut', { fieldToSplitOut: 'rows', options: {} }),
];

function payout(preview: boolean, options: IDataObject = {}, extra: IDataObject = {}): IDataObject {
	return {
		resource: 'payout',
		operation: 'create',
		amount: '={{ $json.amount }}',
		currency: 'XOF',
		beneficiaryIdentifierType: 'gm_account',
		beneficiaryIdentifier: "={{ $json.identifier ?? 'GM-1002' }}",
		channel: 'psp-a-tg',
		beneficiaryAccountType: '',
		businessReference: '={{ $json.ref }}',
		preview,
		options: { maxRetries: 0, retryBaseDelayMs: 2, ...options },
		...extra,
	};
}

function chain(nodes: INode[]): IConnections {
	const connections: IConnections = {};
	for (let index = 0; index < nodes.length - 1; index++) connections[nodes[index].name] = { main: [[{ node: nodes[index + 1].name, type: 'main', index: 0 }]] };
	return connections;
}

interface Approval {
	/** The sheet the person approved (previewed). */
	approved: Row[];
	/** The sheet read again after the approval, and paid; the approved one unless told. */
	paid?: Row[];
	/** The paying node's Options and parameters, beside Approved Plan. */
	payOptions?: IDataObject;
	payParameters?: IDataObject;
	payCredential?: string;
}

function approvalNodes({ approved, paid = approved, payOptions = { approvedPlan: APPROVED_PLAN }, payParameters = {}, payCredential = CREDENTIAL_ID }: Approval): INode[] {
	return [
		node('Start', 'n8n-nodes-base.noOp', {}),
		...sheetNodes('Sheet', approved),
		moneyNode({ name: 'Preview', parameters: payout(true) as never }),
		node('Approve (stands for the person)', 'n8n-nodes-base.noOp', {}),
		...sheetNodes('Sheet read again', paid),
		moneyNode({ name: 'Pay', parameters: payout(false, payOptions, payParameters) as never, credentialId: payCredential }),
	];
}

const workflowOf = (nodes: INode[]) => buildWorkflow(env.engine, { nodes, connections: chain(nodes) });

const runApproval = (approval: Approval, mode: 'trigger' | 'manual' = 'trigger') => runWorkflow(env.engine, workflowOf(approvalNodes(approval)), { mode });

const outputOf = (result: RunResult, name: string): IDataObject[] => result.output(name).map((item) => item.json);

async function payoutPosts(): Promise<number> {
	return (await env.sb.control.counters()).requests.post_money_v1_payout ?? 0;
}

/** How many times the API holds a payout of each amount, on either client. */
async function paidTimes(amounts: number[]): Promise<number[]> {
	const [first, second] = await Promise.all([env.sb.control.ledger(), env.sb.control.ledger(env.sb.info.otherClients[0].clientId)]);
	const all = [...first.payouts, ...second.payouts].map((entry) => Math.abs(entry.amount.value));
	return amounts.map((amount) => all.filter((each) => each === amount).length);
}

function hintsOf(result: RunResult, name: string): string[] {
	return ((result.run.data.resultData.runData[name]?.[0]?.hints ?? []) as Array<{ message: string }>).map((hint) => hint.message);
}

describe('the plan of a preview', () => {
	it('is above the output and on every item; the same rows in another order are the same plan, any change another', async () => {
		const rows = sheet(['1', 51_001], ['2', 51_002, 'GM-1003'], ['3', 51_003]);
		const preview = async (sheetRows: Row[]) => outputOf(await runApproval({ approved: sheetRows, payOptions: {} , paid: [] }), 'Preview');
		const first = await runApproval({ approved: rows, paid: [] });
		const items = outputOf(first, 'Preview');
		const planId = items[0].plan_id as string;
		expect(planId).toMatch(/^plan-[0-9a-f]{40}$/);
		expect(items.map((item) => item.plan_id)).toEqual([planId, planId, planId]);
		expect(items.map((item) => item.plan_row)).toEqual([expect.stringMatching(/^[0-9a-f]{32}$/), expect.any(String), expect.any(String)]);
		expect(hintsOf(first, 'Preview').join('\n')).toContain(`Money payout preview: plan ${planId}, 3 rows to the Money API client ${env.sb.info.clientId} at `);

		expect((await preview([rows[2], rows[0], rows[1]]))[0].plan_id).toBe(planId);
		expect((await preview([rows[0], { ...rows[1], amount: 51_012 }, rows[2]]))[0].plan_id).not.toBe(planId);
		expect((await preview(rows.slice(0, 2)))[0].plan_id).not.toBe(planId);
		expect(await payoutPosts()).toBe(0);
	});

	it('a charge preview has its plan too', async () => {
		const rows = sheet(['1', 2500, 'GM-1001']);
		const chargeParameters = (preview: boolean) => {
			const { beneficiaryIdentifierType, beneficiaryIdentifier, beneficiaryAccountType, ...common } = payout(preview);
			return { ...common, resource: 'charge', payerIdentifierType: beneficiaryIdentifierType, payerIdentifier: beneficiaryIdentifier, payerAccountType: beneficiaryAccountType };
		};
		const nodes = [node('Start', 'n8n-nodes-base.noOp', {}), ...sheetNodes('Sheet', rows), moneyNode({ name: 'Preview', parameters: chargeParameters(true) as never })];
		const result = await runWorkflow(env.engine, workflowOf(nodes), { mode: 'trigger' });
		const [item] = outputOf(result, 'Preview');
		expect(item.plan_id).toMatch(/^plan-[0-9a-f]{40}$/);
		expect(hintsOf(result, 'Preview').join('\n')).toContain(`Money charge preview: plan ${String(item.plan_id)}, 1 row to the Money API client`);
	});
});

describe('Approved Plan', () => {
	it('pays an approved plan once, exactly: every row and no other, in whatever order the sheet is read again', async () => {
		const approved = sheet(['1', 52_001], ['2', 52_002, 'GM-1003'], ['3', 52_003]);
		const result = await runApproval({ approved, paid: [approved[2], approved[0], approved[1]] });
		expect(result.error()).toBeUndefined();
		expect(outputOf(result, 'Pay').map((item) => [item.outcome, item.amount])).toEqual([
			['created', 52_003],
			['created', 52_001],
			['created', 52_002],
		]);
		expect(await payoutPosts()).toBe(3);
		expect(await paidTimes([52_001, 52_002, 52_003])).toEqual([1, 1, 1]);
	});

	it.each([
		['a row edited', (rows: Row[]) => [rows[0], { ...rows[1], amount: 53_012 }, rows[2]], /1 changed: \S+-2 \(amount 53002 → 53012\)/],
		['a beneficiary changed', (rows: Row[]) => [rows[0], rows[1], { ...rows[2], identifier: 'GM-1004' }], /1 changed: \S+-3 \(beneficiary_identifier GM-1002 → GM-1004\)/],
		['a row added', (rows: Row[]) => [...rows, { ref: `${rows[0].ref}-extra`, amount: 53_004 }], /1 row added since the approval: \S+-1-extra \(53004 XOF to GM-1002\)/],
		['a row removed', (rows: Row[]) => rows.slice(0, 2), /1 removed: \S+-3 \(53003 XOF to GM-1002\)/],
	])('refuses the whole run, sending nothing, after %s since the approval', async (_change, edit, named) => {
		const approved = sheet(['1', 53_001], ['2', 53_002], ['3', 53_003]);
		const result = await runApproval({ approved, paid: edit(approved) });
		const error = result.error();
		expect(error?.message).toMatch(/^Payout run refused, nothing was sent: the rows are not the approved plan plan-[0-9a-f]{40} \(Approved Plan\)/);
		expect(error?.message).toMatch(named);
		expect(error?.description).toContain('Preview the run again');
		expect(await payoutPosts()).toBe(0);
		expect(await paidTimes([53_001, 53_002, 53_003, 53_004, 53_012])).toEqual([0, 0, 0, 0, 0]);
	});

	it('one amount written as a number or as text is one plan: the sheet read again with "57001" for 57001 pays, once', async () => {
		const approved = sheet(['1', 57_001], ['2', 57_002]);
		const asText = approved.map((row) => ({ ...row, amount: String(row.amount) as unknown as number }));
		const result = await runApproval({ approved, paid: asText });
		expect(result.error()).toBeUndefined();
		expect(outputOf(result, 'Pay').map((item) => [item.outcome, item.amount])).toEqual([
			['created', 57_001],
			['created', 57_002],
		]);
		expect(await paidTimes([57_001, 57_002])).toEqual([1, 1]);
	});

	it('refuses the whole run when the paying node now goes to another API client', async () => {
		const approved = sheet(['1', 54_001], ['2', 54_002]);
		const result = await runApproval({ approved, payCredential: SECOND_CLIENT });
		expect(result.error()?.message).toContain(`the credential now goes to the Money API client ${env.sb.info.otherClients[0].clientId} at `);
		expect(await paidTimes([54_001, 54_002])).toEqual([0, 0]);
	});

	it('refuses a run with a row without a Business Reference: the preview node and the paying node keep their own keys for it', async () => {
		const approved = sheet(['1', 55_001], ['', 55_002]);
		const result = await runApproval({ approved, payParameters: { requireBusinessReference: false } }, 'manual');
		expect(result.error()?.message).toContain('a run with Approved Plan needs a Business Reference on every row; item 2 has none');
		expect(hintsOf(result, 'Preview').join('\n')).toContain('a run with Approved Plan refuses this plan: item 2 has no Business Reference');
		expect(await paidTimes([55_001, 55_002])).toEqual([0, 0]);
	});

	it('a Retry of an approved run that failed part-way keeps its approval: it pays the rest, nothing twice', async () => {
		const approved = sheet(['1', 56_001], ['2', 56_002], ['3', 956_003], ['4', 56_004]);
		const nodes = approvalNodes({ approved });
		await env.sb.control.updateClient(env.sb.info.clientId, { balance: 200_000 });
		const failed = await runWorkflow(env.engine, workflowOf(nodes), { mode: 'trigger' });
		expect(failed.error()?.message).toContain('INSUFFICIENT_FUNDS');
		expect(await paidTimes([56_001, 56_002, 956_003, 56_004])).toEqual([1, 1, 0, 0]);

		await env.sb.control.updateClient(env.sb.info.clientId, { balance: 100_000_000 });
		const retried = await retryExecution(env.engine, workflowOf(nodes), failed);
		expect(retried.error()).toBeUndefined();
		expect(outputOf(retried, 'Pay').map((item) => item.outcome)).toEqual(['replayed', 'replayed', 'created', 'created']);
		expect(await paidTimes([56_001, 56_002, 956_003, 56_004])).toEqual([1, 1, 1, 1]);
	});
});
