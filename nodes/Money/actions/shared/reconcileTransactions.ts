import type { IDataObject, IExecuteFunctions, INodeExecutionData, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import {
	CHARGE_STATUSES,
	LIST_PAGE_SIZE_MAX,
	PAYOUT_STATUSES,
	ROUTES,
	type TransactionResource,
} from '../../../shared/constants';
import { moneyApiPages, moneyApiRequest } from '../../../shared/transport';
import { outcomeOutputs, summaryItem } from '../../helpers/reconcile/items';
import { matchRecords } from '../../helpers/reconcile/match';
import { readRecord, valueAt } from '../../helpers/reconcile/records';
import { summarize, summaryCsv } from '../../helpers/reconcile/report';
import { TransactionIndex } from '../../helpers/reconcile/transactionIndex';
import type { MatchSettings, ReconcileRecord } from '../../helpers/reconcile/types';
import { simplifyTransaction } from '../../helpers/simplify';
import { fieldError } from '../../helpers/validation';
import type { CallSettings, OperationContext } from '../types';
import { periodQuery } from './listTransactions';
import { STATUS_FROM_FIELD } from './reconcileDescription';

function readSettings(this: IExecuteFunctions, options: IDataObject): MatchSettings {
	const tolerance = options.amountTolerance ?? 0;
	if (!(typeof tolerance === 'number' && Number.isSafeInteger(tolerance) && tolerance >= 0)) {
		const rule = 'must be a whole number of 0 or more';
		throw fieldError(this.getNode(), { parameter: 'Amount Tolerance', field: 'amountTolerance', rule }, 0);
	}
	return { amountTolerance: tolerance, pendingIsNotFinal: options.pendingHandling !== 'difference' };
}

/**
 * Every record, read from its item through the field names (read once, like Compare Datasets'
 * fields to match: no expression per item). A record that cannot be read stops the node.
 */
function readRecords(this: IExecuteFunctions, resource: TransactionResource, options: IDataObject): ReconcileRecord[] {
	const statuses = resource === 'payout' ? PAYOUT_STATUSES : CHARGE_STATUSES;
	const name = (parameter: string, fallback = '') => String(this.getNodeParameter(parameter, 0, fallback) ?? '').trim();
	const fields = {
		reference: name('referenceField'),
		businessReference: name('businessReferenceField'),
		amount: name('amountField', 'amount'),
		currency: name('currencyField'),
	};
	if (!fields.reference && !fields.businessReference) {
		const rule = 'or Business Reference Field must name the record field to match on';
		throw fieldError(this.getNode(), { parameter: 'Reference Field', field: 'referenceField', rule }, 0);
	}
	const expectedStatus = String(this.getNodeParameter('expectedStatus', 0, 'COMPLETED') ?? '');
	const statusField = expectedStatus === STATUS_FROM_FIELD ? name('statusField', 'status') : '';
	const defaultCurrency = typeof options.defaultCurrency === 'string' ? options.defaultCurrency : '';

	const items = this.getInputData();
	const records: ReconcileRecord[] = new Array(items.length);
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		const json = items[itemIndex].json;
		const currency = fields.currency ? valueAt(json, fields.currency) : undefined;
		const reading = readRecord(
			itemIndex,
			json,
			{
				reference: fields.reference ? valueAt(json, fields.reference) : undefined,
				businessReference: fields.businessReference ? valueAt(json, fields.businessReference) : undefined,
				amount: valueAt(json, fields.amount),
				currency: currency === undefined || currency === null || currency === '' ? defaultCurrency : currency,
				status: statusField ? valueAt(json, statusField) : expectedStatus,
			},
			statuses,
		);
		if (!reading.ok) throw fieldError(this.getNode(), reading.problem, itemIndex);
		records[itemIndex] = reading.record;
	}
	return records;
}

async function readPeriod(
	this: IExecuteFunctions,
	resource: TransactionResource,
	qs: IDataObject,
	settings: CallSettings,
	index: TransactionIndex,
): Promise<void> {
	const pages = moneyApiPages.call(this, ROUTES[resource], qs, {
		itemIndex: 0,
		retry: settings.retry,
		timeoutMs: settings.timeoutMs,
		pageSize: LIST_PAGE_SIZE_MAX,
	});
	for await (const page of pages) for (const envelope of page.items) index.add(envelope);
}

/** Reads, one by one, the transactions records name by reference that the period did not hold. */
async function lookUpOutsidePeriod(
	this: IExecuteFunctions,
	resource: TransactionResource,
	records: readonly ReconcileRecord[],
	settings: CallSettings,
	index: TransactionIndex,
): Promise<void> {
	const looked = new Set<string>();
	for (const record of records) {
		const { reference } = record;
		if (reference === undefined || looked.has(reference) || index.find(reference, record.businessReference)) continue;
		looked.add(reference);
		try {
			const response = await moneyApiRequest.call(this, 'GET', `${ROUTES[resource]}/${encodeURIComponent(reference)}`, {
				itemIndex: record.itemIndex,
				retry: settings.retry,
				timeoutMs: settings.timeoutMs,
			});
			const envelope = response.data;
			if (envelope && typeof envelope === 'object' && !Array.isArray(envelope)) index.add(envelope as IDataObject, true);
		} catch (error) {
			if (!(error instanceof NodeApiError)) throw new NodeOperationError(this.getNode(), error as Error, { itemIndex: record.itemIndex });
			// NodeApiError's constructor hands back the same instance: its error_code and httpCode stay.
			if (error.context.httpCode !== 404) throw new NodeApiError(this.getNode(), error as unknown as JsonObject);
		}
	}
}

/**
 * Reconcile: the input items are the merchant's records; the period's transactions are read in
 * pages of 100 and matched. Outputs: Matched, Mismatched, Missing in API, Unexpected in API, and
 * with the Report option a fifth, Report, holding one summary item.
 */
export async function executeReconcile(
	this: IExecuteFunctions,
	resource: TransactionResource,
	context: OperationContext,
): Promise<INodeExecutionData[][]> {
	const options = this.getNodeParameter('options', 0, {}) as IDataObject;
	const matchSettings = readSettings.call(this, options);
	const qs = periodQuery.call(this, this.getNodeParameter('createdAfter', 0, ''), this.getNodeParameter('createdBefore', 0, ''), 0);
	if (!qs.start_date || !qs.end_date) {
		const [parameter, field] = qs.start_date ? ['Created Before', 'end_date'] : ['Created After', 'start_date'];
		throw fieldError(this.getNode(), { parameter, field, rule: 'is required: the period decides which transactions are unexpected' }, 0);
	}
	const records = readRecords.call(this, resource, options);
	const settings = context.callSettings(0);

	const index = new TransactionIndex();
	await readPeriod.call(this, resource, qs, settings, index);
	if (options.lookUpOutsidePeriod !== false) await lookUpOutsidePeriod.call(this, resource, records, settings, index);

	const outcomes = matchRecords(records, index, matchSettings);
	const outputs = outcomeOutputs(outcomes, settings.simplify ? simplifyTransaction : (envelope) => envelope);
	if (options.report === true) {
		const binaryProperty = String(options.reportBinaryProperty ?? '').trim() || 'data';
		const totals = summarize(outcomes);
		const csv = Buffer.from(summaryCsv(totals), 'utf8');
		const fileName = `reconciliation-${resource}-${qs.start_date.slice(0, 10)}.csv`;
		const data = await this.helpers.prepareBinaryData(csv, fileName, 'text/csv');
		const period = { resource, start_date: qs.start_date, end_date: qs.end_date };
		outputs.push([summaryItem(outcomes, totals, period, records.length, { binaryProperty, data })]);
	}
	return outputs;
}
