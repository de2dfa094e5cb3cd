import type { IDataObject } from 'n8n-workflow';

import { transactionAmount, transactionCurrency } from './differences';
import { RECONCILIATION_STATUSES, type Outcomes, type ReconciliationStatus } from './types';

export interface SummaryRow {
	output: ReconciliationStatus;
	currency: string | null;
	/** Outcomes of the output in this currency: a record's currency, or for a transaction no record claims, its own. */
	count: number;
	/** Sum of the records' expected amounts in this currency (none for unexpected transactions). */
	expected_amount: number;
	/** Sum of the transactions' amounts without sign in this currency (none for missing records). */
	api_amount: number;
}

/**
 * Counts and totals per output and currency; an empty output still gets one row with count 0. Each
 * amount counts in its own currency: a record in XOF paired with a transaction in XAF adds to the
 * XOF row's expected amount and to the XAF row's API amount.
 */
export function summarize(outcomes: Outcomes): SummaryRow[] {
	const rows: SummaryRow[] = [];
	for (const output of RECONCILIATION_STATUSES) {
		const byCurrency = new Map<string | null, SummaryRow>();
		const rowFor = (currency: string | null): SummaryRow => {
			let row = byCurrency.get(currency);
			if (!row) byCurrency.set(currency, (row = { output, currency, count: 0, expected_amount: 0, api_amount: 0 }));
			return row;
		};
		for (const outcome of outcomes[output]) {
			const apiCurrency = outcome.transaction ? transactionCurrency(outcome.transaction) : null;
			rowFor(outcome.record?.currency ?? apiCurrency).count++;
			if (outcome.record) rowFor(outcome.record.currency).expected_amount += outcome.record.amount;
			if (outcome.transaction) rowFor(apiCurrency).api_amount += transactionAmount(outcome.transaction) ?? 0;
		}
		if (byCurrency.size === 0) rows.push({ output, currency: null, count: 0, expected_amount: 0, api_amount: 0 });
		rows.push(...[...byCurrency.values()].sort((a, b) => String(a.currency).localeCompare(String(b.currency))));
	}
	return rows;
}

export function countsOf(outcomes: Outcomes): IDataObject {
	const counts: IDataObject = {};
	for (const output of RECONCILIATION_STATUSES) counts[output] = outcomes[output].length;
	return counts;
}

const CSV_COLUMNS: Array<keyof SummaryRow> = ['output', 'currency', 'count', 'expected_amount', 'api_amount'];

/** A cell as spreadsheets read it: quoted when needed, and never starting like a formula. */
function csvCell(value: unknown): string {
	let text = value === null || value === undefined ? '' : String(value);
	if (typeof value === 'string' && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
	return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export function summaryCsv(rows: readonly SummaryRow[]): string {
	const lines = [CSV_COLUMNS.join(',')];
	for (const row of rows) lines.push(CSV_COLUMNS.map((column) => csvCell(row[column])).join(','));
	return `${lines.join('\r\n')}\r\n`;
}
