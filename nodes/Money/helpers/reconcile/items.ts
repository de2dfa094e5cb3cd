import type { IBinaryData, IDataObject, INodeExecutionData } from 'n8n-workflow';

import { countsOf, type SummaryRow } from './report';
import { RECONCILIATION_STATUSES, type Outcome, type Outcomes } from './types';

/**
 * One output item: the record, the transaction (or null) and the verdict. It is paired with its
 * record's input item; an unexpected transaction has no record and so no pairing.
 */
export function outcomeItem(outcome: Outcome, shapeTransaction: (envelope: IDataObject) => IDataObject): INodeExecutionData {
	const item: INodeExecutionData = {
		json: {
			record: outcome.record?.json ?? null,
			transaction: outcome.transaction ? shapeTransaction(outcome.transaction) : null,
			reconciliation: outcome.reconciliation as unknown as IDataObject,
		},
	};
	if (outcome.record) item.pairedItem = { item: outcome.record.itemIndex };
	return item;
}

/** The four outputs, in the order Matched, Mismatched, Missing in the API, Unexpected in the API. */
export function outcomeOutputs(
	outcomes: Outcomes,
	shapeTransaction: (envelope: IDataObject) => IDataObject,
): INodeExecutionData[][] {
	return RECONCILIATION_STATUSES.map((status) => outcomes[status].map((outcome) => outcomeItem(outcome, shapeTransaction)));
}

export interface SummaryPeriod {
	resource: string;
	start_date: string;
	end_date: string;
	/** How the period was read: the transactions read and the API's count of them. */
	period_read: { transactions: number; api_total: number };
}

/** The summary item: counts, totals per output and currency, and the CSV report when given. */
export function summaryItem(
	outcomes: Outcomes,
	totals: SummaryRow[],
	period: SummaryPeriod,
	recordCount: number,
	csv?: { binaryProperty: string; data: IBinaryData },
): INodeExecutionData {
	const item: INodeExecutionData = {
		json: { ...period, records: recordCount, counts: countsOf(outcomes), totals: totals as unknown as IDataObject[] },
		pairedItem: { item: 0 },
	};
	if (csv) item.binary = { [csv.binaryProperty]: csv.data };
	return item;
}
