import type { IDataObject } from 'n8n-workflow';

import { AGENT_METADATA, dayLimitBroken, type MandateTerms, spendingOf, termsBroken } from '../../../../../nodes/Money/helpers/create/mandate';

const NOW = Date.parse('2026-12-06T12:00:00Z');
const HOUR = 3_600_000;

const row = (amount: number, hoursAgo: number, metadata?: IDataObject | null, status = 'COMPLETED'): IDataObject => ({
	reference: `pay_${amount}_${hoursAgo}`,
	amount: { value: -amount, currency: 'XOF' },
	status: { code: 1, label: status },
	created_at: new Date(NOW - hoursAgo * HOUR).toISOString(),
	...(metadata === undefined ? {} : { metadata }),
});
const agent = (key: string): IDataObject => ({ [AGENT_METADATA.verdict]: 'within mandate', [AGENT_METADATA.key]: key });

const terms = (overrides: Partial<MandateTerms> = {}): MandateTerms => ({
	perPayment: 1000,
	per24Hours: 0,
	parties: [],
	currencies: [],
	channels: [],
	beyond: 'refuse',
	...overrides,
});
const body = { amount: 500, currency: 'XOF', channel: 'platform', beneficiary_identifier: { identifier: 'GM-1', type: 'gm_account' } };

describe('an agent mandate', () => {
	describe('the last 24 hours', () => {
		it("counts the agent's creates the list shows, not others, not those that moved nothing, not older ones", () => {
			const listed = [
				row(100, 1, agent('k1')),
				row(200, 2, { n8n_business_reference: 'order-1' }),
				row(300, 3, agent('k2'), 'FAILED'),
				row(400, 4, agent('k3'), 'CANCELLED'),
				row(500, 5, agent('k4'), 'REVERSED'),
				row(600, 6, agent('k5'), 'SOMETHING NEW'),
				row(700, 25, agent('k6')),
				row(800, 7),
			];
			expect(spendingOf(listed, [], NOW, 'call')).toEqual({ total: 100 + 500 + 600, unmarked: 0 });
		});

		it('counts every create when the list shows no metadata at all, and says how many', () => {
			const listed = [row(100, 1), row(200, 2, null), row(300, 3, undefined, 'FAILED')];
			expect(spendingOf(listed, [], NOW, 'call')).toEqual({ total: 300, unmarked: 2 });
		});

		it("adds this execution's sends the list does not show yet, once, and never the call's own key", () => {
			const listed = [row(100, 1, agent('k1')), row(250, 1, agent('call'))];
			const own = [
				{ key: 'k1', amount: 100 },
				{ key: 'k9', amount: 900 },
				{ key: 'call', amount: 250 },
			];
			expect(spendingOf(listed, own, NOW, 'call')).toEqual({ total: 1000, unmarked: 0 });
		});

		it('is broken only past its maximum, naming what was already spent', () => {
			expect(dayLimitBroken(terms({ per24Hours: 1000 }), 400, { total: 600, unmarked: 0 })).toBeUndefined();
			expect(dayLimitBroken(terms({ per24Hours: 1000 }), 401, { total: 600, unmarked: 0 })).toBe(
				"amount 401 would take the last 24 hours' total past the maximum of 1000 (already 600)",
			);
			expect(dayLimitBroken(terms({ per24Hours: 0 }), 10 ** 9, { total: 10 ** 9, unmarked: 0 })).toBeUndefined();
			expect(dayLimitBroken(terms({ per24Hours: 10 }), 5, { total: 6, unmarked: 3 })).toContain('give the agent an API client of its own');
		});
	});

	describe('the terms', () => {
		it('passes a call within every term', () => {
			expect(termsBroken('payout', terms({ parties: ['GM-1'], currencies: ['XOF'], channels: ['platform'], expiresAt: NOW + 1 }), body, NOW)).toEqual([]);
		});

		it('names each term a call breaks, in the order a person lifts them', () => {
			const broken = termsBroken('payout', terms({ perPayment: 100, parties: ['GM-2'], currencies: ['XAF'], channels: ['psp-a-tg'], expiresAt: NOW }), body, NOW);
			expect(broken).toEqual([
				'the mandate expired at 2026-12-06T12:00:00.000Z',
				'currency XOF is not one the mandate allows (XAF)',
				'channel platform is not one the mandate allows (psp-a-tg)',
				"GM-1 is not among the mandate's allowed beneficiaries",
				'amount 500 is above the maximum per payment of 100',
			]);
		});

		it('refuses an amount that is not a number below the maximum', () => {
			expect(termsBroken('charge', terms(), { ...body, amount: Number.NaN }, NOW)).toEqual(['amount NaN is above the maximum per payment of 1000']);
		});
	});
});
