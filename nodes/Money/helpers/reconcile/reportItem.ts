import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import type { TransactionResource } from '../../../api/values';
import type { PeriodIndex } from './apiReads';
import type { Period } from './input';
import { summaryItem } from './items';
import { summarize, summaryCsv } from './report';
import type { Outcomes } from './types';

/** The Report output's one item: counts and totals per output and currency, and the same as a CSV file. */
export async function reportItem(
	this: IExecuteFunctions,
	resource: TransactionResource,
	outcomes: Outcomes,
	period: Period,
	read: PeriodIndex['read'],
	recordCount: number,
	options: IDataObject,
): Promise<INodeExecutionData> {
	const binaryProperty = String(options.reportBinaryProperty ?? '').trim() || 'data';
	const totals = summarize(outcomes);
	const csv = Buffer.from(summaryCsv(totals), 'utf8');
	const fileName = `reconciliation-${resource}-${period.start_date.slice(0, 10)}.csv`;
	const data = await this.helpers.prepareBinaryData(csv, fileName, 'text/csv');
	const periodRead = { transactions: read.transactions, api_total: read.total };
	return summaryItem(outcomes, totals, { resource, ...period, period_read: periodRead }, recordCount, { binaryProperty, data });
}
