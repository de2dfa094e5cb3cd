import type { IDataObject, IExecuteFunctions, INode } from 'n8n-workflow';

import { businessReferenceKey } from '../../../../../nodes/Money/helpers/create/memory';
import { approvalOf, type Plan, planOf } from '../../../../../nodes/Money/helpers/create/plan';
import { type CreateRow, identityOf } from '../../../../../nodes/Money/helpers/create/rows';
import { fieldError } from '../../../../../nodes/Money/helpers/validation';
import { callSettingsOf } from '../../../../../nodes/transport/request';

const C1 = 'client c1 at https://api.example.com';
const C2 = 'client c2 at https://api.example.com';
const MONEY = 'n8n-nodes-money.money';
const PLAN_ID = /^plan-[0-9a-f]{40}$/;

/** A payout body as validation.ts builds it. */
function payout(amount: number, beneficiary = 'GM-1002', extra: IDataObject = {}): IDataObject {
	return { amount, currency: 'XOF', beneficiary_identifier: { identifier: beneficiary, type: 'gm_account' }, channel: 'platform', ...extra };
}

/** A row as rows.ts reads it; `approvedPlan` is what the row's Options give. */
function row(itemIndex: number, businessReference: string, body: IDataObject | undefined, options: IDataObject = {}): CreateRow {
	const reference: CreateRow['reference'] = businessReference === '' ? { kind: 'none' } : { kind: 'reference', value: businessReference };
	return { itemIndex, reference, businessReference, body, pin: '1234', options, call: callSettingsOf({}), preview: false, identity: identityOf('payout', body ?? {}, businessReference) };
}

/** The keys the run gives its rows: the Business Reference's, else a default key of this node (here, by item). */
const keysOf = (rows: CreateRow[], anchor = 'a1') => rows.map((each) => (each.businessReference !== '' ? businessReferenceKey('payout', each.businessReference) : `${anchor}-${each.itemIndex}`));

const sheet = (rows: Array<[string, IDataObject | undefined]>, options: IDataObject = {}) => rows.map(([reference, body], index) => row(index, reference, body, options));

const plan = (rows: CreateRow[], client = C1, anchor = 'a1') => planOf('payout', client, rows, keysOf(rows, anchor));

describe('the plan of a create run', () => {
	const rows = sheet([
		['p-1', payout(5000)],
		['p-2', payout(7000, 'GM-1003')],
		['p-3', payout(900)],
	]);

	it('is an id of 40 hex digits and a digest per row, the same for the same rows in any order', () => {
		const once = plan(rows);
		expect(once.id).toMatch(PLAN_ID);
		expect(once.rows).toHaveLength(3);
		const reordered = [rows[2], rows[0], rows[1]].map((each, index) => ({ ...each, itemIndex: index }));
		expect(plan(reordered).id).toBe(once.id);
		expect(plan(reordered).rows).toEqual([once.rows[2], once.rows[0], once.rows[1]]);
		expect(once.client).toBe(C1);
	});

	it('is another plan after any change to what the run moves, where or to whom', () => {
		const base = plan(rows).id;
		const withFirst = (body: IDataObject | undefined, reference = 'p-1') => plan([row(0, reference, body), ...rows.slice(1)]).id;
		const changed = {
			amount: withFirst(payout(5001)),
			currency: withFirst(payout(5000, 'GM-1002', { currency: 'XAF' })),
			beneficiary: withFirst(payout(5000, 'GM-1004')),
			identifierType: withFirst({ ...payout(5000), beneficiary_identifier: { identifier: 'GM-1002', type: 'phone' } }),
			channel: withFirst(payout(5000, 'GM-1002', { channel: 'psp-a-tg' })),
			accountType: withFirst(payout(5000, 'GM-1002', { beneficiary_account_type: 'Driver' })),
			accountNumber: withFirst(payout(5000, 'GM-1002', { account_number: 'W-2' })),
			businessReference: withFirst(payout(5000), 'p-9'),
			cannotBeSent: withFirst(undefined),
			client: plan(rows, C2).id,
			resource: planOf('charge', C1, rows, keysOf(rows)).id,
			added: plan([...rows, row(3, 'p-4', payout(100))]).id,
			removed: plan(rows.slice(0, 2)).id,
			repeated: plan([...rows, row(3, 'p-3', payout(900))]).id,
		};
		for (const [change, id] of Object.entries(changed)) expect([change, id]).not.toEqual([change, base]);
		expect(new Set(Object.values(changed)).size).toBe(Object.keys(changed).length);
	});

	it('is the same plan when only free text changes: Message, Metadata and the payment reference are evaluated again by a Retry', () => {
		const text = { message: 'Run 41', metadata: { batch: '7' }, payment_reference: { ref_number: 'INV-1' } };
		expect(plan([row(0, 'p-1', payout(5000, 'GM-1002', text)), ...rows.slice(1)]).id).toBe(plan(rows).id);
	});

	it('keys a row without a Business Reference by nothing but its movement: two nodes keep two default keys, one plan', () => {
		const unreferenced = sheet([
			['', payout(5000)],
			['p-2', payout(7000)],
		]);
		expect(plan(unreferenced, C1, 'preview-anchor').id).toBe(plan(unreferenced, C1, 'paying-anchor').id);
		expect(plan(unreferenced).unreferenced).toEqual([0]);
	});
});

interface Situation {
	/** The node's own Options as configured (an expression for Approved Plan, say). */
	options?: IDataObject;
	/** The approved preview's output in this execution, by run of the node named Preview. */
	previewRuns?: IDataObject[][];
}

const node = (options: IDataObject): INode => ({ id: 'n2', name: 'Pay', type: MONEY, typeVersion: 1, position: [0, 0], parameters: { resource: 'payout', operation: 'create', options: options as INode['parameters'] } });

/** What the approval reads of n8n: the node, its ancestors, their outputs. */
function nodeRun({ options = { approvedPlan: "={{ $('Preview').first().json.plan_id }}" }, previewRuns = [] }: Situation = {}): IExecuteFunctions {
	const ancestors = [
		{ name: 'Preview', type: MONEY, typeVersion: 1, disabled: false, parameters: { resource: 'payout', operation: 'create', preview: true } },
		{ name: 'Rows', type: 'n8n-nodes-base.set', typeVersion: 3.4, disabled: false, parameters: {} },
	];
	return {
		getNode: () => node(options),
		getParentNodes: () => ancestors,
		getWorkflowDataProxy: () => ({
			$thisRunIndex: 0,
			$: (name: string) => ({
				all: (_branch?: number, run = previewRuns.length - 1) => {
					if (name !== 'Preview' || run < 0 || run >= previewRuns.length) throw new Error(`Node '${name}' hasn't been executed`);
					return previewRuns[run].map((json) => ({ json }));
				},
			}),
		}),
	} as unknown as IExecuteFunctions;
}

/** The items a preview of `rows` gives: each row's identity, its plan id and part. */
function previewItems(rows: CreateRow[], of: Plan): IDataObject[] {
	return rows.map((each) => ({ verdict: 'would send', ...identityOf('payout', each.body ?? {}, each.businessReference), plan_id: of.id, plan_row: of.rows[each.itemIndex], preview: true }));
}

describe('Approved Plan', () => {
	const approvedRows = sheet([
		['p-1', payout(5000)],
		['p-2', payout(7000, 'GM-1003')],
		['p-3', payout(900)],
	]);
	const approved = plan(approvedRows);
	const approving = (rows: CreateRow[], id = approved.id) => rows.map((each) => ({ ...each, options: { approvedPlan: id } }));
	const situation = { previewRuns: [previewItems(approvedRows, approved)] };

	it('without the option, approves nothing and refuses nothing', () => {
		expect(approvalOf(nodeRun({ options: {} }), 'payout', approved, approvedRows)).toEqual({});
	});

	it('the approved rows: the run goes, under that plan', () => {
		const rows = approving(approvedRows);
		expect(approvalOf(nodeRun(situation), 'payout', plan(rows), rows)).toEqual({ approved: approved.id });
	});

	it('rows edited, added and removed since the approval: the whole run is refused, naming each by Business Reference and party', () => {
		const rows = approving(
			sheet([
				['p-1', payout(5000)],
				['p-2', payout(7500, 'GM-1003')],
				['p-4', payout(300, 'GM-1004')],
			]),
		);
		const { refusal } = approvalOf(nodeRun(situation), 'payout', plan(rows), rows);
		expect(refusal?.context.attempted).toBe(false);
		expect(refusal?.message).toContain(`Payout run refused, nothing was sent: the rows are not the approved plan ${approved.id}`);
		expect(refusal?.message).toContain('1 row added since the approval: p-4 (300 XOF to GM-1004)');
		expect(refusal?.message).toContain('1 removed: p-3 (900 XOF to GM-1002)');
		expect(refusal?.message).toContain('1 changed: p-2 (amount 7000 → 7500)');
		expect(refusal?.message).not.toContain('API client');
		expect(refusal?.description).toContain('Preview the run again');
		expect(refusal?.context.details).toMatchObject({ approved_plan: approved.id, plan: plan(rows).id, added: ['p-4'], removed: ['p-3'], api_client_changed: false });
		expect((refusal?.context.details as IDataObject).changed).toEqual([{ business_reference: 'p-2', changes: [{ field: 'amount', approved: 7000, now: 7500 }] }]);
	});

	it('many rows added: named up to a bound, the rest counted; every one in details', () => {
		const extra = Array.from({ length: 8 }, (_, index) => row(3 + index, `p-${10 + index}`, payout(100 + index)));
		const rows = approving([...approvedRows, ...extra]);
		const { refusal } = approvalOf(nodeRun(situation), 'payout', plan(rows), rows);
		expect(refusal?.message).toContain('8 rows added since the approval: p-10 (100 XOF to GM-1002), p-11 (101 XOF to GM-1002), p-12 (102 XOF to GM-1002), p-13 (103 XOF to GM-1002), p-14 (104 XOF to GM-1002) and 3 more');
		expect((refusal?.context.details as IDataObject).added).toEqual(['p-10', 'p-11', 'p-12', 'p-13', 'p-14', 'p-15', 'p-16', 'p-17']);
	});

	it('a row repeated since the approval (same Business Reference, same values): refused, saying the rows differ', () => {
		const rows = approving([...approvedRows, row(3, 'p-3', payout(900))]);
		const { refusal } = approvalOf(nodeRun(situation), 'payout', plan(rows), rows);
		expect(refusal?.context.attempted).toBe(false);
		expect(refusal?.message).toMatch(/^Payout run refused, nothing was sent: the rows are not the approved plan plan-[0-9a-f]{40} \(Approved Plan\); they are plan plan-[0-9a-f]{40}: rows repeated or without a Business Reference differ$/);
	});

	it('the same rows to another API client: refused, naming the client', () => {
		const rows = approving(approvedRows);
		const { refusal } = approvalOf(nodeRun(situation), 'payout', plan(rows, C2), rows);
		expect(refusal?.message).toContain(`the credential now goes to the Money API ${C2}, not to the API client of the approved plan`);
		expect(refusal?.message).not.toMatch(/added|removed|changed/);
	});

	it('a change the preview does not show (the Account Number): refused, saying so', () => {
		const rows = approving([row(0, 'p-1', payout(5000, 'GM-1002', { account_number: 'W-2' })), ...approvedRows.slice(1)]);
		const { refusal } = approvalOf(nodeRun(situation), 'payout', plan(rows), rows);
		expect(refusal?.message).toContain('1 changed: p-1 (Account Number, or whether it can be sent)');
	});

	it('the approved preview in an earlier run of the preview node (a loop): found there', () => {
		const rows = approving([...approvedRows.slice(0, 2), row(2, 'p-3', payout(901))]);
		const earlier = { previewRuns: [previewItems(approvedRows, approved), previewItems(rows, plan(rows))] };
		expect(approvalOf(nodeRun(earlier), 'payout', plan(rows), rows).refusal?.message).toContain('1 changed: p-3 (amount 900 → 901)');
	});

	it('a plan approved in another execution (its preview is not in this one): refused, saying to preview again', () => {
		const rows = approving(approvedRows, 'plan-0000000000000000000000000000000000000000');
		const { refusal } = approvalOf(nodeRun(situation), 'payout', plan(rows), rows);
		expect(refusal?.message).toContain('the rows are not the approved plan plan-0000000000000000000000000000000000000000 (Approved Plan)');
		expect(refusal?.message).toContain('the rows or the API client differ, and the approved preview is not in this execution');
		expect(refusal?.description).toContain('Preview the run again');
	});

	it('an Approved Plan that gives nothing, or another plan on another item, refuses the whole run: an approval that reads nothing approves nothing', () => {
		const empty = approving(approvedRows, '');
		expect(approvalOf(nodeRun(situation), 'payout', plan(empty), empty).refusal?.message).toContain('Approved Plan (options.approvedPlan) gave no plan for items 1, 2 and 3');
		const unreadable = approving(approvedRows).map((each, index) => (index === 1 ? { ...each, options: {} } : each));
		expect(approvalOf(nodeRun(situation), 'payout', plan(unreadable), unreadable).refusal?.message).toContain('gave no plan for item 2');
		const mixed = approving(approvedRows).map((each, index) => (index === 2 ? { ...each, options: { approvedPlan: 'plan-other' } } : each));
		expect(approvalOf(nodeRun(situation), 'payout', plan(mixed), mixed).refusal?.message).toContain(`Approved Plan (options.approvedPlan) is not one plan for the run: item 1 gives ${approved.id}, item 3 gives plan-other`);
	});

	it('a row without a Business Reference refuses the run: the preview and the paying node keep their own default keys', () => {
		const rows = approving([row(0, '', payout(5000)), ...approvedRows.slice(1)]);
		const { refusal } = approvalOf(nodeRun(situation), 'payout', plan(rows), rows);
		expect(refusal?.message).toContain('a run with Approved Plan needs a Business Reference on every row; item 1 has none');
		expect(refusal?.context.field).toBe('idempotency-key');
	});

	it('a repeat of a run approved as one plan (a Retry): refused when it is now approved as another plan, or without Approved Plan', () => {
		const rows = approving(approvedRows);
		expect(approvalOf(nodeRun(situation), 'payout', approved, rows, approved.id)).toEqual({ approved: approved.id });
		const other = approving(approvedRows, 'plan-1111111111111111111111111111111111111111');
		expect(approvalOf(nodeRun(situation), 'payout', approved, other, approved.id).refusal?.message).toContain(`this run of the node was first approved as plan ${approved.id}, and is now repeated under plan-1111111111111111111111111111111111111111`);
		const without = approvedRows;
		expect(approvalOf(nodeRun({ ...situation, options: {} }), 'payout', approved, without, approved.id).refusal?.message).toContain(`this run of the node was first approved as plan ${approved.id}, and is now repeated without Approved Plan`);
	});

	it('a repeat of an approved run whose Approved Plan now gives nothing (its expression fails in a Retry): refused as giving no plan, not as a run without the option', () => {
		const empty = approving(approvedRows, '');
		const { refusal } = approvalOf(nodeRun(situation), 'payout', approved, empty, approved.id);
		expect(refusal?.message).toContain('Approved Plan (options.approvedPlan) gave no plan for items 1, 2 and 3');
		expect(refusal?.message).not.toContain('without Approved Plan');
	});

	it('a row that cannot be sent is part of the plan as it is: fixing it after the approval changes the plan', () => {
		const broken = row(1, 'p-2', undefined);
		broken.error = fieldError(node({}), { parameter: 'amount', label: 'Amount', field: 'amount', rule: 'must be a number' }, 1);
		const before = plan([approvedRows[0], broken, approvedRows[2]]);
		expect(before.id).not.toBe(approved.id);
		const fixed = approving(approvedRows, before.id);
		expect(approvalOf(nodeRun({ previewRuns: [] }), 'payout', plan(fixed), fixed).refusal).toBeDefined();
	});
});
