import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import {
	CHARGE_STATUSES,
	LIST_PAGE_SIZE_MAX,
	PAYOUT_STATUSES,
	ROUTES,
	type TransactionResource,
} from '../../../shared/constants';
import { moneyApiPages, moneyApiRequest } from '../../../shared/transport';
import { BUSINESS_REFERENCE_METADATA_FIELD } from '../../helpers/businessReference';
import { outcomeOutputs, summaryItem } from '../../helpers/reconcile/items';
import { matchRecords } from '../../helpers/reconcile/match';
import { readRecord, valueAt } from '../../helpers/reconcile/records';
import { summarize, summaryCsv } from '../../helpers/reconcile/report';
import { TransactionIndex } from '../../helpers/reconcile/transactionIndex';
import type { MatchSettings, ReconcileRecord } from '../../helpers/reconcile/types';
import { simplifyTransaction } from '../../helpers/simplify';
import { fieldError } from '../../helpers/validation';
import { optionsCollection, retryOptions, simplifyOption } from '../common.descriptions';
import type { CallSettings, OperationContext } from '../types';
import { periodQuery } from './listTransactions';

/** The Expected Status choice that reads each record's own status from Status Field. */
const STATUS_FROM_FIELD = 'fromField';

export function reconcileDescription(resource: TransactionResource): INodeProperties[] {
	const show = { resource: [resource], operation: ['reconcile'] };
	const plural = `${resource}s`;
	const field = (property: Omit<INodeProperties, 'displayOptions'>): INodeProperties => ({ ...property, displayOptions: { show } });
	return [
		field({
			displayName: `Each input item is one of your records. The node reads every ${resource} created in the period and sends each record, and each ${resource} no record claims, to one output: Matched, Mismatched, Missing in API, Unexpected in API.`,
			name: 'reconcileNotice',
			type: 'notice',
			default: '',
		}),
		field({
			displayName: 'Created After',
			name: 'createdAfter',
			type: 'dateTime',
			required: true,
			default: '',
			description: `Start of the period: ${plural} created at or after this moment are read. A date without a time zone is in the workflow's time zone.`,
		}),
		field({
			displayName: 'Created Before',
			name: 'createdBefore',
			type: 'dateTime',
			required: true,
			default: '',
			description: `End of the period: ${plural} created at or before this moment are read`,
		}),
		field({
			displayName: 'Reference Field',
			name: 'referenceField',
			type: 'string',
			default: '',
			placeholder: 'e.g. reference',
			requiresDataPath: 'single',
			description: `Name of the record field holding the API reference of the ${resource} (returned by Create). Leave empty to match on the Business Reference Field alone.`,
		}),
		field({
			displayName: 'Business Reference Field',
			name: 'businessReferenceField',
			type: 'string',
			default: '',
			placeholder: 'e.g. order_id',
			requiresDataPath: 'single',
			description: `Name of the record field holding your own ID (the Business Reference given at Create, stored in the ${resource}'s metadata under "${BUSINESS_REFERENCE_METADATA_FIELD}"). Used when the record has no reference or it is not found.`,
		}),
		field({
			displayName: 'Amount Field',
			name: 'amountField',
			type: 'string',
			required: true,
			default: 'amount',
			requiresDataPath: 'single',
			description: 'Name of the record field holding the expected amount: a whole number in the smallest currency unit (for payouts, without a minus sign)',
		}),
		field({
			displayName: 'Currency Field',
			name: 'currencyField',
			type: 'string',
			default: 'currency',
			requiresDataPath: 'single',
			description: 'Name of the record field holding the three-letter currency code. Records without it use the Default Currency option.',
		}),
		field({
			displayName: 'Expected Status',
			name: 'expectedStatus',
			type: 'options',
			options: [
				{ name: 'Any (Do Not Compare)', value: '' },
				{ name: 'Cancelled', value: 'CANCELLED' },
				{ name: 'Completed', value: 'COMPLETED' },
				{ name: 'Failed', value: 'FAILED' },
				{ name: 'From a Record Field', value: 'fromField' },
				{ name: 'Pending', value: 'PENDING' },
				...(resource === 'payout' ? [{ name: 'Reversed', value: 'REVERSED' }] : []),
			],
			default: 'COMPLETED',
			description: `Status every record expects of its ${resource}`,
		}),
		{
			displayName: 'Status Field',
			name: 'statusField',
			type: 'string',
			default: 'status',
			requiresDataPath: 'single',
			description: 'Name of the record field holding the expected status; an empty value means the status is not compared',
			displayOptions: { show: { ...show, expectedStatus: [STATUS_FROM_FIELD] } },
		},
		optionsCollection([resource], ['reconcile'], [
			{
				displayName: 'Amount Tolerance',
				name: 'amountTolerance',
				type: 'number',
				typeOptions: { minValue: 0, numberPrecision: 0 },
				default: 0,
				description: 'Largest difference between expected and actual amount still counted as equal, in the smallest currency unit. 0 means exact.',
			},
			{
				displayName: 'Default Currency',
				name: 'defaultCurrency',
				type: 'string',
				default: '',
				placeholder: 'e.g. XOF',
				description: 'Currency of the records that have no Currency Field value',
			},
			{
				displayName: 'Look Up Records Outside the Period',
				name: 'lookUpOutsidePeriod',
				type: 'boolean',
				default: true,
				description: `Whether a record whose Record Reference is not among the period's ${plural} is read by its reference, so a payment made just before or after the period is compared (flagged outside_period) instead of reported missing`,
			},
			...retryOptions.slice(0, 1),
			{
				displayName: 'Pending Status',
				name: 'pendingHandling',
				type: 'options',
				options: [
					{
						name: 'Matched, Not Final',
						value: 'notFinal',
						description: 'A PENDING transaction is matched when the rest agrees, with final: false',
					},
					{
						name: 'Status Difference',
						value: 'difference',
						description: 'A PENDING transaction is mismatched when the record expects another status',
					},
				],
				default: 'notFinal',
				description: 'How a transaction still PENDING is judged against a record that expects another status',
			},
			{
				displayName: 'Report Output',
				name: 'report',
				type: 'boolean',
				default: false,
				description: 'Whether to add a fifth output, Report, with one summary item: counts and totals per output and currency, and the same as a CSV file in its binary data',
			},
			{
				displayName: 'Report Binary Field',
				name: 'reportBinaryProperty',
				type: 'string',
				default: 'data',
				description: 'With Report Output: the binary field of the summary item that holds the CSV file',
			},
			...retryOptions.slice(1),
			simplifyOption,
		]),
	];
}

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
		const csv = Buffer.from(summaryCsv(summarize(outcomes)), 'utf8');
		const fileName = `reconciliation-${resource}-${qs.start_date.slice(0, 10)}.csv`;
		const data = await this.helpers.prepareBinaryData(csv, fileName, 'text/csv');
		const period = { resource, start_date: qs.start_date, end_date: qs.end_date };
		outputs.push([summaryItem(outcomes, period, records.length, { binaryProperty, data })]);
	}
	return outputs;
}
