import type { IDataObject } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import { startSandbox } from '../../../sandbox';
import { buildWorkflow, CREDENTIAL_ID, CREDENTIAL_TYPE, credentialFromSandbox, moneyNode, runMoneyNode } from '../../harness/engine';
import { aroundNow, csvLines, differences, FAST, orderOf, RECORD_FIELDS, useReconcile, verdict } from './reconcileSetup';

const { env, create, reconcile } = useReconcile();

describe('Reconcile against the sandbox', () => {
	it('calls a status the specification does not list not final, and a difference from the status the record expects', async () => {
		await create('charge', [{ order: 'ord-label', amount: 1500, status: 'COMPLETED' }]);
		await env.sb.control.addFault({ route: 'get_money_v1_charge_list', kind: 'status-label', label: 'REFUNDED' });
		const out = await reconcile([{ order: 'ord-label', amount: 1500 }], aroundNow());
		expect(out.mismatched.map((item) => differences(item))).toEqual([[{ field: 'status', expected: 'COMPLETED', actual: 'REFUNDED' }]]);
		expect(verdict(out.mismatched[0])).toMatchObject({ final: false });
	});

	it('sends every record and every unclaimed charge to its output, with each difference named', async () => {
		const references = await create('charge', [
			{ order: 'ord-1', amount: 1000, status: 'COMPLETED' },
			{ order: 'ord-2', amount: 2000, status: 'COMPLETED' },
			{ order: 'ord-3', amount: 3000, status: 'FAILED' },
			{ order: 'ord-4', amount: 4000 },
			{ order: 'ord-5', amount: 5000, status: 'COMPLETED' },
		]);
		references.push(...(await create('charge', [{ amount: 6000, status: 'COMPLETED' }])));
		const records: IDataObject[] = [
			{ order: 'ord-1', amount: 1000 },
			{ reference: references[1], amount: 2500 },
			{ order: 'ord-3', amount: 3000 },
			{ order: 'ord-4', amount: 4000 },
			{ order: 'ord-5', amount: '5000', currency: 'XAF' },
			{ order: 'ord-404', amount: 700 },
			{ reference: 'chg_not_a_charge', amount: 800 },
		];
		const out = await reconcile(records, aroundNow());

		expect(out.matched.map(orderOf)).toEqual(['ord-1', 'ord-4']);
		expect(verdict(out.matched[0])).toEqual({
			status: 'matched',
			differences: [],
			matched_by: 'business_reference',
			final: true,
			outside_period: false,
			period_read: { transactions: 6, api_total: 6 },
		});
		expect(verdict(out.matched[1])).toMatchObject({ status: 'matched', final: false });
		expect(out.matched[0].transaction).toMatchObject({ reference: references[0], metadata: { n8n_business_reference: 'ord-1' } });

		expect(out.mismatched.map((item) => differences(item))).toEqual([
			[{ field: 'amount', expected: 2500, actual: 2000 }],
			[{ field: 'status', expected: 'COMPLETED', actual: 'FAILED' }],
			[{ field: 'currency', expected: 'XAF', actual: 'XOF' }],
		]);
		expect(verdict(out.mismatched[0]).matched_by).toBe('reference');

		expect(out.missing.map((item) => item.record)).toEqual([records[5], records[6]]);
		expect(out.missing.every((item) => item.transaction === null && verdict(item).status === 'missing')).toBe(true);

		expect(out.unexpected).toHaveLength(1);
		expect(out.unexpected[0]).toMatchObject({ record: null, transaction: { reference: references[5] } });
		expect(verdict(out.unexpected[0])).toMatchObject({ status: 'unexpected', differences: [] });

		const paired = out.items.slice(0, 3).flat().map((item) => item.pairedItem);
		expect(paired).toEqual(expect.arrayContaining(records.map((_, item) => ({ item }))));
		expect(out.items[3][0].pairedItem).toBeUndefined();
	});

	it('judges a PENDING charge as a status difference when asked, and within the amount tolerance as equal', async () => {
		await create('charge', [{ order: 'ord-p', amount: 4000 }, { order: 'ord-t', amount: 1000, status: 'COMPLETED' }]);
		const records = [{ order: 'ord-p', amount: 4000 }, { order: 'ord-t', amount: 1005 }];

		const strict = await reconcile(records, aroundNow(), { pendingHandling: 'difference', amountTolerance: 5 });
		expect(strict.matched.map(orderOf)).toEqual(['ord-t']);
		expect(differences(strict.mismatched[0])).toEqual([{ field: 'status', expected: 'COMPLETED', actual: 'PENDING' }]);

		const exact = await reconcile(records, aroundNow());
		expect(differences(exact.mismatched[0])).toEqual([{ field: 'amount', expected: 1005, actual: 1000 }]);

		// Statuses from a record field (nested), an empty one meaning "not compared".
		const fromField = await reconcile(
			[{ order: 'ord-p', amount: 4000, state: { expected: 'pending' } }, { order: 'ord-t', amount: 1000, state: { expected: '' } }],
			aroundNow(),
			{ pendingHandling: 'difference' },
			'charge',
			{ expectedStatus: 'fromField', statusField: 'state.expected' },
		);
		expect(fromField.matched.map(orderOf)).toEqual(['ord-p', 'ord-t']);
	});

	it('reports both of two records claiming one charge, the second as a duplicate claim', async () => {
		const [reference] = await create('charge', [{ order: 'ord-d', amount: 1000, status: 'COMPLETED' }]);
		const out = await reconcile(
			[
				{ order: 'ord-d', amount: 1000 },
				{ reference, amount: 1000 },
				{ order: 'ord-gone', amount: 10 },
				{ order: 'ord-gone', amount: 10 },
			],
			aroundNow(),
		);
		expect(out.matched.map((item) => item.record)).toEqual([{ order: 'ord-d', amount: 1000 }]);
		expect(out.mismatched).toHaveLength(1);
		expect(differences(out.mismatched[0])).toEqual([
			{ field: 'duplicate_claim', expected: null, actual: reference, claimed_by_item: 0 },
		]);
		expect(out.missing.map((item) => differences(item))).toEqual([
			[],
			[{ field: 'duplicate_claim', expected: null, actual: 'ord-gone', claimed_by_item: 2 }],
		]);
	});

	it('compares a record whose charge was created outside the period, and reads an empty period', async () => {
		const [early] = await create('charge', [{ order: 'ord-early', amount: 1000, status: 'COMPLETED' }]);
		const createdAt = Date.parse((await env.sb.control.ledger()).charges[0].created_at);
		await new Promise((resolve) => setTimeout(resolve, 20));
		const later = await create('charge', [{ order: 'ord-late', amount: 2000, status: 'COMPLETED' }]);
		const period = { createdAfter: new Date(createdAt + 1).toISOString(), createdBefore: new Date(Date.now() + 60_000).toISOString() };
		const records = [
			{ reference: early, amount: 1000 },
			{ order: 'ord-late', amount: 2000 },
		];

		const out = await reconcile(records, period);
		expect(out.matched.map((item) => verdict(item).outside_period)).toEqual([true, false]);
		expect(out.matched.map((item) => (item.transaction as IDataObject).reference)).toEqual([early, later[0]]);
		expect([out.mismatched, out.missing, out.unexpected]).toEqual([[], [], []]);

		// A record that knows only its own id is looked for outside the period too: ord-early lies just before it.
		const byOrder = await reconcile([{ order: 'ord-early', amount: 1000 }], period);
		expect(byOrder.matched.map((item) => [orderOf(item), verdict(item).outside_period])).toEqual([['ord-early', true]]);
		expect(byOrder.unexpected.map((item) => (item.transaction as IDataObject).reference)).toEqual(later);

		const empty = await reconcile(records, { createdAfter: '2001-01-01T00:00:00Z', createdBefore: '2001-01-02T00:00:00Z' });
		expect([empty.matched.length, empty.mismatched.length, empty.missing.length, empty.unexpected.length]).toEqual([2, 0, 0, 0]);
		expect(empty.matched.map((item) => verdict(item).outside_period)).toEqual([true, true]);

		const nothing = await reconcile([{ order: 'ord-none', amount: 5 }], { createdAfter: '2001-01-01T00:00:00Z', createdBefore: '2001-01-02T00:00:00Z' });
		expect([nothing.matched.length, nothing.mismatched.length, nothing.missing.length, nothing.unexpected.length]).toEqual([0, 0, 1, 0]);
		expect(verdict(nothing.missing[0]).searched).toEqual({ start_date: '2000-12-31T00:00:00.000Z', end_date: expect.any(String) });
	});

	it('matches payouts by their unsigned amount and adds a CSV report on a fifth output', async () => {
		await create('payout', [
			{ order: 'pay-1', amount: 1500, status: 'COMPLETED' },
			{ order: 'pay-2', amount: 2500, status: 'COMPLETED' },
		]);
		const out = await reconcile(
			[{ order: 'pay-1', amount: 1500 }, { order: 'pay-2', amount: 2000 }, { order: 'pay-3', amount: 900 }],
			aroundNow(),
			{ report: true, simplify: true },
			'payout',
		);
		expect(out.matched[0].transaction).toMatchObject({ amount: -1500, status: 'COMPLETED', type: 'payout' });
		expect(differences(out.mismatched[0])).toEqual([{ field: 'amount', expected: 2000, actual: 2500 }]);

		const [summary] = out.result.output('Money', 4);
		expect(summary.json).toMatchObject({
			resource: 'payout',
			records: 3,
			counts: { matched: 1, mismatched: 1, missing: 1, unexpected: 0 },
		});
		expect(csvLines(summary)).toEqual([
			'output,currency,count,expected_amount,api_amount',
			'matched,XOF,1,1500,1500',
			'mismatched,XOF,1,2000,2500',
			'missing,XOF,1,900,0',
			'unexpected,,0,0,0',
			'',
		]);
		expect(summary.binary!.data).toMatchObject({ mimeType: 'text/csv', fileName: expect.stringMatching(/^reconciliation-payout-.*\.csv$/) });
	});

	it('stops on a record it cannot read, naming the item and the field, before reading the API', async () => {
		const result = await runMoneyNode(env.engine, {
			parameters: { resource: 'charge', operation: 'reconcile', ...aroundNow(), ...RECORD_FIELDS, options: { ...FAST, defaultCurrency: 'XOF' } },
			items: [{ json: { order: 'a', amount: 10 } }, { json: { order: 'b', amount: 12.5 } }],
		});
		expect(result.error()?.message).toBe(
			'Amount Field (amount) must be a whole number greater than 0 in the smallest currency unit (input item 1)',
		);
		expect((await env.sb.control.counters()).requests.get_money_v1_charge_list ?? 0).toBe(0);
	});

	it('requires the period', async () => {
		const result = await runMoneyNode(env.engine, {
			parameters: { resource: 'charge', operation: 'reconcile', createdAfter: '2026-01-01', createdBefore: '={{ $json.until }}', ...RECORD_FIELDS },
			items: [{ json: { order: 'a', amount: 10 } }],
		});
		expect(result.error()?.message).toContain('Created Before (end_date) is required');
	});

	it('needs a field to match on', async () => {
		const result = await runMoneyNode(env.engine, {
			parameters: { resource: 'charge', operation: 'reconcile', ...aroundNow(), amountField: 'amount' },
			items: [{ json: { order: 'a', amount: 10 } }],
		});
		expect(result.error()?.message).toBe(
			'Reference Field (referenceField) or Business Reference Field must name the record field to match on',
		);
	});

	it('refuses metadata that would give a charge a second business reference', async () => {
		const result = await runMoneyNode(env.engine, {
			parameters: {
				resource: 'charge',
				operation: 'create',
				amount: 1000,
				currency: 'XOF',
				payerIdentifierType: 'gm_account',
				payerIdentifier: 'GM-1001',
				channel: 'psp-a-tg',
				businessReference: 'ord-9',
				additionalFields: { metadata: { entries: [{ key: 'n8n_business_reference', value: 'ord-8' }, { key: 'team', value: 'east' }] } },
				options: FAST,
			},
		});
		expect(result.error()?.message).toContain('Metadata (metadata.n8n_business_reference)');
		expect((await env.sb.control.ledger()).charges).toHaveLength(0);

		const kept = await create('charge', [{ order: 'ord-9', amount: 1000 }]);
		const stored = (await env.sb.control.ledger()).charges.find((entry) => entry.reference === kept[0]);
		expect(stored?.metadata).toEqual({ n8n_business_reference: 'ord-9' });
	});
});

describe('Reconcile looks for a record known only by its Business Reference outside the period before calling it missing', () => {
	const HOUR = 3_600_000;
	const listRequests = async () => (await env.sb.control.counters()).requests.get_money_v1_payout_list ?? 0;
	const seedOne = (order: string, createdAt: number) =>
		env.sb.control.seed({
			resource: 'payout',
			count: 1,
			status: 'COMPLETED',
			amount: 1000,
			createdAtFrom: new Date(createdAt).toISOString(),
			createdAtTo: new Date(createdAt).toISOString(),
			metadata: { n8n_business_reference: order },
		});

	it('matches the payouts of a paced run past the end of the period, and one just before its start, outside the period; says on each record still missing what it searched', async () => {
		// The period: the hour up to now. The run's first payout is in it, the next two (made by the node) after its end.
		const end = Date.now();
		const start = end - HOUR;
		await seedOne('pay-1', end - 60_000);
		await seedOne('pay-0', start - 1_000);
		await seedOne('pay-old', start - HOUR - 1_000);
		await new Promise((resolve) => setTimeout(resolve, 10));
		const late = await create('payout', [
			{ order: 'pay-2', amount: 1000, status: 'COMPLETED' },
			{ order: 'pay-3', amount: 1000, status: 'COMPLETED' },
		]);
		const period = { createdAfter: new Date(start).toISOString(), createdBefore: new Date(end).toISOString() };
		const records = ['pay-0', 'pay-1', 'pay-2', 'pay-3', 'pay-old', 'pay-none'].map((order) => ({ order, amount: 1000 }));
		const before = await listRequests();

		const out = await reconcile(records, period, {}, 'payout', { referenceField: '' });

		const requests = (await listRequests()) - before;
		expect(out.matched.map(orderOf)).toEqual(['pay-0', 'pay-1', 'pay-2', 'pay-3']);
		expect(out.matched.map((item) => verdict(item).outside_period)).toEqual([true, false, true, true]);
		expect(out.matched.slice(2).map((item) => (item.transaction as IDataObject).reference)).toEqual(late);
		expect([out.mismatched, out.unexpected]).toEqual([[], []]);
		expect(out.missing.map(orderOf)).toEqual(['pay-old', 'pay-none']);
		const searched = out.missing.map((item) => verdict(item).searched as IDataObject);
		expect(searched[0]).toEqual(searched[1]);
		expect(searched[0].start_date).toBe(new Date(start - HOUR).toISOString());
		const newest = Math.max(...(await env.sb.control.ledger()).payouts.map((entry) => Date.parse(entry.created_at)));
		expect(Date.parse(searched[0].end_date as string)).toBeGreaterThanOrEqual(newest);
		// The period (one page), the payouts created since its end (one page), the hour before it (one page).
		expect(requests).toBe(3);

		// A run whose records the period holds reads the period alone.
		const ordinary = await listRequests();
		const inPeriod = await reconcile([{ order: 'pay-1', amount: 1000 }], period, {}, 'payout', { referenceField: '' });
		expect(inPeriod.matched.map(orderOf)).toEqual(['pay-1']);
		expect((await listRequests()) - ordinary).toBe(1);
	});

	it('matches a payout created exactly at a bound of the period on an API whose bounds exclude their instant (D6)', async () => {
		await env.sb.close();
		env.sb = await startSandbox({ finalizeAfterMs: null, config: { listBoundsExclusive: true } });
		env.engine.credentials.set(CREDENTIAL_ID, CREDENTIAL_TYPE, credentialFromSandbox(env.sb.info));
		// On whole seconds: an API that keeps created_at to the second puts the first payouts after midnight exactly there.
		const end = Math.floor((Date.now() - 60_000) / 1000) * 1000;
		const start = end - HOUR;
		await seedOne('pay-in', start + 60_000);
		await seedOne('pay-at-end', end);
		await seedOne('pay-at-start', start);
		const period = { createdAfter: new Date(start).toISOString(), createdBefore: new Date(end).toISOString() };
		const out = await reconcile(['pay-in', 'pay-at-end', 'pay-at-start'].map((order) => ({ order, amount: 1000 })), period, {}, 'payout', { referenceField: '' });
		expect(out.matched.map(orderOf)).toEqual(['pay-in', 'pay-at-end', 'pay-at-start']);
		expect([out.missing, out.unexpected]).toEqual([[], []]);
	});

	it('looks outside the period by Business Reference also for a record whose reference the API does not hold', async () => {
		const end = Date.now() - 5_000;
		const start = end - HOUR;
		await seedOne('pay-in', start + 60_000);
		await seedOne('pay-late', end + 1_000);
		const period = { createdAfter: new Date(start).toISOString(), createdBefore: new Date(end).toISOString() };
		const records = [
			{ reference: 'pay_typo_1', order: 'pay-in', amount: 1000 },
			{ reference: 'pay_typo_2', order: 'pay-late', amount: 1000 },
		];
		const out = await reconcile(records, period, {}, 'payout');
		expect(out.mismatched.map((item) => [orderOf(item), verdict(item).matched_by, verdict(item).outside_period])).toEqual([
			['pay-in', 'business_reference', false],
			['pay-late', 'business_reference', true],
		]);
		expect(out.missing).toEqual([]);
	});

	it('reports a second payout of one Business Reference made after the period Unexpected in API, outside the period', async () => {
		const end = Date.now() - 5_000;
		const start = end - HOUR;
		await seedOne('pay-in', start + 60_000);
		await seedOne('pay-x', end + 1_000);
		await seedOne('pay-x', end + 2_000);
		const period = { createdAfter: new Date(start).toISOString(), createdBefore: new Date(end).toISOString() };
		const out = await reconcile([{ order: 'pay-in', amount: 1000 }, { order: 'pay-x', amount: 1000 }], period, {}, 'payout', { referenceField: '' });
		expect(out.matched.map(orderOf)).toEqual(['pay-in', 'pay-x']);
		expect(out.unexpected.map((item) => [(item.transaction as IDataObject).metadata, verdict(item).outside_period])).toEqual([[{ n8n_business_reference: 'pay-x' }, true]]);
		const shown = new Set([...out.matched, ...out.unexpected].map((item) => (item.transaction as IDataObject).reference));
		expect((await env.sb.control.ledger()).payouts.filter((entry) => !shown.has(entry.reference))).toEqual([]);
	});

	it('matches a paced run made wholly after a period that holds only payouts made without a Business Reference', async () => {
		const end = Date.now() - 5_000;
		const start = end - HOUR;
		await env.sb.control.seed({
			resource: 'payout',
			count: 2,
			status: 'COMPLETED',
			amount: 1000,
			createdAtFrom: new Date(start + 60_000).toISOString(),
			createdAtTo: new Date(start + 60_000).toISOString(),
			metadata: { note: 'made by hand in the dashboard' },
		});
		await seedOne('pay-1', end + 1_000);
		await seedOne('pay-2', end + 2_000);
		const period = { createdAfter: new Date(start).toISOString(), createdBefore: new Date(end).toISOString() };
		const out = await reconcile(['pay-1', 'pay-2'].map((order) => ({ order, amount: 1000 })), period, {}, 'payout', { referenceField: '' });
		expect(out.matched.map((item) => [orderOf(item), verdict(item).outside_period])).toEqual([
			['pay-1', true],
			['pay-2', true],
		]);
		expect(out.unexpected).toHaveLength(2);
	});

	it('fails as D12 says, rather than calling every record Missing in API, when the payouts after an empty period carry no metadata in their list rows', async () => {
		await env.sb.close();
		env.sb = await startSandbox({ finalizeAfterMs: null, config: { listRowMetadata: false } });
		env.engine.credentials.set(CREDENTIAL_ID, CREDENTIAL_TYPE, credentialFromSandbox(env.sb.info));
		const end = Date.now() - 30_000;
		const start = end - HOUR;
		await create('payout', [
			{ order: 'pay-1', amount: 1000, status: 'COMPLETED' },
			{ order: 'pay-2', amount: 1000, status: 'COMPLETED' },
		]);
		const period = { createdAfter: new Date(start).toISOString(), createdBefore: new Date(end).toISOString() };
		const result = await runMoneyNode(env.engine, {
			parameters: { resource: 'payout', operation: 'reconcile', ...period, ...RECORD_FIELDS, referenceField: '', options: { ...FAST, defaultCurrency: 'XOF' } },
			items: [{ json: { order: 'pay-1', amount: 1000 } }, { json: { order: 'pay-2', amount: 1000 } }],
		});
		expect((result.error() as Error | undefined)?.message).toBe(
			'None of the 2 payouts read carries a Business Reference: the 2 records to match on Business Reference Field (businessReferenceField) cannot be matched',
		);
	});
});

describe('Reconcile where no transaction of the period carries a Business Reference (docs/decisions.md#d12)', () => {
	const records = [
		{ order: 'ord-1', amount: 1000 },
		{ order: 'ord-2', amount: 2000 },
	];

	async function reconcileFails(expectedCause: RegExp) {
		const result = await runMoneyNode(env.engine, {
			parameters: { resource: 'charge', operation: 'reconcile', ...aroundNow(), ...RECORD_FIELDS, options: { ...FAST, defaultCurrency: 'XOF' } },
			items: records.map((json) => ({ json })),
		});
		const error = result.error() as (Error & { description?: string }) | undefined;
		expect(error?.message).toBe(
			'None of the 2 charges read carries a Business Reference: the 2 records to match on Business Reference Field (businessReferenceField) cannot be matched',
		);
		expect(error?.description).toMatch(expectedCause);
		expect(error?.description).toContain('Reference Field (referenceField)');
		expect(result.output('Money', 2)).toEqual([]);
	}

	it('fails, saying so and what to match on, against an API whose list rows carry no metadata; matches by reference there', async () => {
		await env.sb.close();
		env.sb = await startSandbox({ finalizeAfterMs: null, config: { listRowMetadata: false } });
		env.engine.credentials.set(CREDENTIAL_ID, CREDENTIAL_TYPE, credentialFromSandbox(env.sb.info));
		const references = await create('charge', [
			{ order: 'ord-1', amount: 1000, status: 'COMPLETED' },
			{ order: 'ord-2', amount: 2000, status: 'COMPLETED' },
		]);
		await reconcileFails(/list rows carry no metadata/);

		const byReference = await reconcile(
			references.map((reference, index) => ({ ...records[index], reference })),
			aroundNow(),
		);
		expect(byReference.matched.map((item) => verdict(item).matched_by)).toEqual(['reference', 'reference']);
	});

	it('fails the same way when the rows carry metadata but none a Business Reference', async () => {
		await create('charge', [{ amount: 1000, status: 'COMPLETED' }, { amount: 2000, status: 'COMPLETED' }]);
		await reconcileFails(/created without a Business Reference/);
	});
});

describe('Money node outputs', () => {
	const outputsFor = (parameters: IDataObject) => {
		const node = moneyNode({ parameters: parameters as never });
		const workflow = buildWorkflow(env.engine, { nodes: [node] });
		const type = env.engine.nodeTypes.getByNameAndVersion(node.type, 1);
		return NodeHelpers.getNodeOutputs(workflow, node, type.description);
	};

	it('gives Reconcile four named outputs (five with Report) and every other operation one', () => {
		expect(outputsFor({ resource: 'charge', operation: 'getAll' })).toEqual(['main']);
		expect(outputsFor({ resource: 'account', operation: 'get' })).toEqual(['main']);
		expect(outputsFor({ resource: 'payout', operation: 'create' })).toEqual(['main']);
		expect(outputsFor({ resource: 'charge', operation: 'reconcile' })).toEqual(
			['Matched', 'Mismatched', 'Missing in API', 'Unexpected in API'].map((displayName) => ({ type: 'main', displayName })),
		);
		expect(outputsFor({ resource: 'payout', operation: 'reconcile', options: { report: true } })).toHaveLength(5);
	});
});
