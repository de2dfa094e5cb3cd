import type { INodeProperties } from 'n8n-workflow';

import type { TransactionResource } from '../../api/values';
import { byName, statusOptions } from '../../api/options';
import { BUSINESS_REFERENCE_METADATA_FIELD } from '../../api/values';
import { optionsCollection, retryOptions, simplifyOption } from './options';

/** The parameters of Charge → Reconcile and Payout → Reconcile. */

/** The Expected Status choice that reads each record's own status from Status Field. */
export const STATUS_FROM_FIELD = 'fromField';

/** The most records the Concurrency option lets Reconcile read by reference at the same time. */
export const LOOKUP_CONCURRENCY_MAX = 32;

export const reconcileNotice = (resource: TransactionResource): INodeProperties => ({
	displayName: `Each input item is one of your records. The node reads every ${resource} created in the period and sends each record, and each ${resource} no record claims, to one output: Matched, Mismatched, Missing in API, Unexpected in API.`,
	name: 'reconcileNotice',
	type: 'notice',
	default: '',
});

/** The period, required: it decides which transactions no record claims. */
export const reconcilePeriodFields = (resource: TransactionResource): INodeProperties[] => [
	{
		displayName: 'Created After',
		name: 'createdAfter',
		type: 'dateTime',
		required: true,
		default: '',
		description: `Start of the period: ${resource}s created at or after this moment are read. A date without a time zone is in the workflow's time zone.`,
	},
	{
		displayName: 'Created Before',
		name: 'createdBefore',
		type: 'dateTime',
		required: true,
		default: '',
		description: `End of the period: ${resource}s created at or before this moment are read`,
	},
];

/** Where each record keeps the values to compare, by field name (dot paths allowed). */
export const recordFieldNames = (resource: TransactionResource): INodeProperties[] => [
	{
		displayName: 'Reference Field',
		name: 'referenceField',
		type: 'string',
		default: '',
		placeholder: 'e.g. reference',
		requiresDataPath: 'single',
		description: `Name of the record field holding the API reference of the ${resource} (returned by Create). Leave empty to match on the Business Reference Field alone.`,
	},
	{
		displayName: 'Business Reference Field',
		name: 'businessReferenceField',
		type: 'string',
		default: '',
		placeholder: 'e.g. order_id',
		requiresDataPath: 'single',
		description: `Name of the record field holding your own ID (the Business Reference given at Create, stored in the ${resource}'s metadata under "${BUSINESS_REFERENCE_METADATA_FIELD}"). Used when the record has no reference or it is not found. The node fails when no ${resource} of the period carries one (an API whose lists omit metadata): match on Reference Field then.`,
	},
	{
		displayName: 'Amount Field',
		name: 'amountField',
		type: 'string',
		required: true,
		default: 'amount',
		requiresDataPath: 'single',
		description: 'Name of the record field holding the expected amount: a whole number in the smallest currency unit (for payouts, without a minus sign)',
	},
	{
		displayName: 'Currency Field',
		name: 'currencyField',
		type: 'string',
		default: 'currency',
		requiresDataPath: 'single',
		description: 'Name of the record field holding the three-letter currency code. Records without it use the Default Currency option.',
	},
];

/** The status every record expects: a fixed one, any, or each record's own (Status Field). */
export const expectedStatusFields = (resource: TransactionResource): INodeProperties[] => [
	{
		displayName: 'Expected Status',
		name: 'expectedStatus',
		type: 'options',
		options: byName([
			{ name: 'Any (Do Not Compare)', value: '' },
			{ name: 'From a Record Field', value: STATUS_FROM_FIELD },
			...statusOptions(resource),
		]),
		default: 'COMPLETED',
		description: `Status every record expects of its ${resource}`,
	},
	{
		displayName: 'Status Field',
		name: 'statusField',
		type: 'string',
		default: 'status',
		requiresDataPath: 'single',
		description: 'Name of the record field holding the expected status; an empty value means the status is not compared',
		displayOptions: { show: { expectedStatus: [STATUS_FROM_FIELD] } },
	},
];

export const reconcileOptions = (resource: TransactionResource): INodeProperties =>
	optionsCollection([
		{
			displayName: 'Amount Tolerance',
			name: 'amountTolerance',
			type: 'number',
			typeOptions: { minValue: 0, numberPrecision: 0 },
			default: 0,
			description: 'Largest difference between expected and actual amount still counted as equal, in the smallest currency unit. 0 means exact.',
		},
		{
			displayName: 'Concurrency',
			name: 'concurrency',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: LOOKUP_CONCURRENCY_MAX, numberPrecision: 0 },
			default: 1,
			description: `How many records are read by their reference at the same time. A record whose Reference Field value is not among the period's ${resource}s is read by it before it is called missing; one created outside the period is compared and flagged outside_period.`,
		},		{
			displayName: 'Default Currency',
			name: 'defaultCurrency',
			type: 'string',
			default: '',
			placeholder: 'e.g. XOF',
			description: 'Currency of the records that have no Currency Field value',
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
	]);
