import { summarize, summaryCsv } from '../../../../../nodes/Money/helpers/reconcile/report';
import type { Outcome, Outcomes } from '../../../../../nodes/Money/helpers/reconcile/types';

const verdict = (status: Outcome['reconciliation']['status']): Outcome['reconciliation'] => ({
	status,
	differences: [],
	matched_by: null,
	final: null,
	outside_period: false,
});

function withRecord(status: Outcome['reconciliation']['status'], amount: number, currency: string, apiAmount?: number): Outcome {
	return {
		record: { itemIndex: 0, amount, currency, json: {} },
		transaction: apiAmount === undefined ? undefined : { amount: { value: apiAmount, currency } },
		reconciliation: verdict(status),
	};
}

describe('reconciliation report', () => {
	const outcomes: Outcomes = {
		matched: [withRecord('matched', 100, 'XOF', 100), withRecord('matched', 50, 'XAF', -50), withRecord('matched', 10, 'XOF', 10)],
		mismatched: [],
		missing: [withRecord('missing', 70, 'XOF')],
		unexpected: [{ transaction: { amount: { value: -30, currency: 'xof' } }, reconciliation: verdict('unexpected') }],
	};

	it('counts and totals per output and currency, with a zero row for an empty output', () => {
		expect(summarize(outcomes)).toEqual([
			{ output: 'matched', currency: 'XAF', count: 1, expected_amount: 50, api_amount: 50 },
			{ output: 'matched', currency: 'XOF', count: 2, expected_amount: 110, api_amount: 110 },
			{ output: 'mismatched', currency: null, count: 0, expected_amount: 0, api_amount: 0 },
			{ output: 'missing', currency: 'XOF', count: 1, expected_amount: 70, api_amount: 0 },
			{ output: 'unexpected', currency: 'XOF', count: 1, expected_amount: 0, api_amount: 30 },
		]);
	});

	it('writes CSV with CRLF lines, quoting and no cell that a spreadsheet would run as a formula', () => {
		const csv = summaryCsv([
			{ output: 'matched', currency: 'XOF', count: 1, expected_amount: 2, api_amount: 2 },
			{ output: 'missing', currency: '=HYPERLINK("x")', count: 0, expected_amount: 0, api_amount: 0 },
		] as never);
		expect(csv).toBe(
			'output,currency,count,expected_amount,api_amount\r\nmatched,XOF,1,2,2\r\nmissing,"\'=HYPERLINK(""x"")",0,0,0\r\n',
		);
	});
});
