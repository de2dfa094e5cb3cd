import type { IDataObject } from 'n8n-workflow';

import { PARTY_PARAMETERS } from '../../../nodes/Money/helpers/validation';
import { runMoneyNode } from '../../harness/engine';
import { generateList, mutateWhileReading, seedAll } from '../generatedLists';
import { aroundNow, csvLines, FAST, hintsOf, useReconcile, verdict } from './reconcileSetup';

/*
 * Reconcile's period read whole (docs/decisions.md#d11): every transaction of the period once,
 * those a record names read by reference before it is called missing, the output saying how the
 * period was read, an empty period named, totals per currency; and a property test over generated
 * lists while the list moves.
 */
const { env, create, reconcile } = useReconcile();

describe('Reconcile never calls a transaction the API holds missing', () => {
	const day = { createdAfter: '2024-04-02T00:00:00Z', createdBefore: '2024-04-03T00:00:00Z' };
	const asRecord = (entry: { reference: string; amount: { value: number; currency: string } }) => ({
		reference: entry.reference,
		amount: Math.abs(entry.amount.value),
		currency: entry.amount.currency,
	});

	it('matches each of a day of 260 payouts, 150 of them created in one second, with ties listed in another order on each request; the output says how the period was read', async () => {
		await env.sb.control.setListTieOrder('alternating');
		await env.sb.control.seed({ resource: 'payout', count: 110, status: 'COMPLETED', createdAtFrom: '2024-04-02T00:00:10Z', createdAtTo: '2024-04-02T23:59:50Z' });
		await env.sb.control.seed({ resource: 'payout', count: 150, status: 'COMPLETED', createdAtFrom: '2024-04-02T10:00:00Z', createdAtTo: '2024-04-02T10:00:00Z' });
		const records = (await env.sb.control.ledger()).payouts.map(asRecord);

		const out = await reconcile(records, day, {}, 'payout', { businessReferenceField: '' });

		expect([out.matched.length, out.mismatched.length, out.missing.length, out.unexpected.length]).toEqual([260, 0, 0, 0]);
		expect(out.matched.filter((item) => verdict(item).outside_period)).toEqual([]);
		expect(verdict(out.matched[0]).period_read).toEqual({ transactions: 260, api_total: 260 });
		expect(hintsOf(out.result)).toEqual(['Read 260 payouts created in the period, as many as the Money API counts (260)']);
	});

	it('looks up by its reference every record the period does not hold, Concurrency at a time, before calling it missing', async () => {
		const outside = await create('charge', Array.from({ length: 6 }, (_, index) => ({ amount: 1000 + index, status: 'COMPLETED' as const })));
		const records = outside.map((reference, index) => ({ reference, amount: 1000 + index }));
		const later = { createdAfter: new Date(Date.now() + 60_000).toISOString(), createdBefore: new Date(Date.now() + 120_000).toISOString() };
		await env.sb.control.addFault({ route: 'get_money_v1_charge_reference', kind: 'delay', delayMs: 300 });
		const started = Date.now();

		const out = await reconcile([...records, { reference: 'chg_unknown', amount: 5 }], later, { concurrency: 3 });

		expect(out.matched.map((item) => (item.transaction as IDataObject).reference)).toEqual(outside);
		expect(out.matched.every((item) => verdict(item).outside_period === true)).toBe(true);
		expect(out.missing.map((item) => (item.record as IDataObject).reference)).toEqual(['chg_unknown']);
		// 7 reads of 300 ms, 3 at a time: 3 rounds, not 7.
		expect(Date.now() - started).toBeLessThan(7 * 300);
	});

	it('says above the output, and on every record, that the period holds no transaction of the resource', async () => {
		const empty = { createdAfter: '2001-01-01T00:00:00Z', createdBefore: '2001-01-02T00:00:00Z' };
		const out = await reconcile([{ order: 'ord-a', amount: 5 }, { order: 'ord-b', amount: 7 }], empty);

		const note = 'No charge of the Money API was created in the period (2001-01-01T00:00:00.000Z to 2001-01-02T00:00:00.000Z): the period is probably wrong. Check Created After and Created Before.';
		expect(out.missing.map((item) => verdict(item).note)).toEqual([note, note]);
		expect(hintsOf(out.result)).toEqual([note]);
	});

	it('keeps the CSV totals per currency: a charge in XAF paired with a record in XOF counts in the XAF api_amount', async () => {
		const [reference] = await create('charge', [{ amount: 1000, status: 'COMPLETED' }]);
		await env.sb.control.seed({ resource: 'charge', count: 0, status: 'COMPLETED' });
		const xaf = (await runMoneyNode(env.engine, {
			parameters: { resource: 'charge', operation: 'create', amount: 700, currency: 'XAF', [PARTY_PARAMETERS.charge.identifierType]: 'gm_account', [PARTY_PARAMETERS.charge.identifier]: 'GM-1001', channel: 'psp-a-tg', [PARTY_PARAMETERS.charge.accountType]: '', businessReference: '', options: FAST },
		})).output('Money')[0].json.reference as string;

		const out = await reconcile([{ reference, amount: 1000 }, { reference: xaf, amount: 700 }], aroundNow(), { report: true });

		expect(csvLines(out.result.output('Money', 4)[0])).toEqual([
			'output,currency,count,expected_amount,api_amount',
			'matched,XOF,1,1000,1000',
			'mismatched,XAF,0,0,700',
			'mismatched,XOF,1,700,0',
			'missing,,0,0,0',
			'unexpected,,0,0,0',
			'',
		]);
	});
});

describe('Reconcile over generated lists (property test)', () => {
	it.each([1, 2, 3, 4, 5])('list %i: puts no payout the API holds in Missing in API, also while payouts are listed late and change status', async (seed) => {
		const from = Date.parse('2024-06-10T00:00:00Z');
		const to = from + 86_400_000;
		await seedAll(env.sb.control, generateList(seed, 'payout', from, to, 'gen', seed % 2 === 0 ? 'PENDING' : 'COMPLETED'));
		const held = (await env.sb.control.ledger()).payouts;
		const records = held.map((entry) => ({ reference: entry.reference, amount: Math.abs(entry.amount.value), currency: entry.amount.currency }));

		const stop = mutateWhileReading(env.sb.control, seed, 'payout', from, to, 'gen', held.filter((entry) => entry.status.label === 'PENDING').map((entry) => entry.reference));
		const out = await reconcile(records, { createdAfter: new Date(from).toISOString(), createdBefore: new Date(to).toISOString() }, {}, 'payout', { businessReferenceField: '', expectedStatus: '' });
		await stop();

		const late = new Set((await env.sb.control.ledger()).payouts.filter((entry) => (entry.metadata as IDataObject | null)?.batch === 'gen-late').map((entry) => entry.reference));
		expect({ missing: out.missing.length, mismatched: out.mismatched.length, matched: out.matched.length }).toEqual({ missing: 0, mismatched: 0, matched: records.length });
		expect(out.matched.filter((item) => verdict(item).outside_period)).toEqual([]);
		expect(out.unexpected.map((item) => (item.transaction as IDataObject).reference).filter((reference) => !late.has(reference as string))).toEqual([]);
	});
});
