import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import {
	CHARGE_STATUSES,
	LIST_PAGE_SIZE_MAX,
	PAYOUT_STATUSES,
	ROUTES,
	type TransactionResource,
} from '../../../shared/constants';
import { moneyApiPages } from '../../../shared/transport';
import { simplifyTransaction } from '../../helpers/simplify';
import { fieldError, toIsoTimestamp } from '../../helpers/validation';
import { optionsCollection, readOptions } from '../common.descriptions';
import type { OperationContext } from '../types';

const STATUS_NAMES: Record<string, string> = {
	CANCELLED: 'Cancelled',
	COMPLETED: 'Completed',
	FAILED: 'Failed',
	PENDING: 'Pending',
	REVERSED: 'Reversed',
};

export function listTransactionsDescription(resource: TransactionResource): INodeProperties[] {
	const show = { resource: [resource], operation: ['getAll'] };
	const statuses: readonly string[] = resource === 'payout' ? PAYOUT_STATUSES : CHARGE_STATUSES;
	return [
		{
			displayName: 'Return All',
			name: 'returnAll',
			type: 'boolean',
			default: false,
			description: 'Whether to return all results or only up to a given limit',
			displayOptions: { show },
		},
		{
			displayName: 'Limit',
			name: 'limit',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: LIST_PAGE_SIZE_MAX },
			default: 50,
			description: 'Max number of results to return',
			displayOptions: { show: { ...show, returnAll: [false] } },
		},
		{
			displayName: 'Filters',
			name: 'filters',
			type: 'collection',
			placeholder: 'Add filter',
			default: {},
			displayOptions: { show },
			options: [
				{
					displayName: 'Channel',
					name: 'channel',
					type: 'options',
					options: [
						{ name: 'Platform', value: 'platform' },
						{ name: 'PSP A (Togo)', value: 'psp-a-tg' },
						{ name: 'PSP B (Togo)', value: 'psp-b-tg' },
					],
					default: 'platform',
				},
				{
					displayName: 'Created After',
					name: 'startDate',
					type: 'dateTime',
					default: '',
					description: `Only ${resource}s created at or after this moment`,
				},
				{
					displayName: 'Created Before',
					name: 'endDate',
					type: 'dateTime',
					default: '',
					description: `Only ${resource}s created at or before this moment`,
				},
				{
					displayName: 'Status',
					name: 'status',
					type: 'options',
					options: [...statuses]
						.sort((a, b) => STATUS_NAMES[a].localeCompare(STATUS_NAMES[b]))
						.map((status) => ({ name: STATUS_NAMES[status], value: status })),
					default: 'PENDING',
				},
			],
		},
		optionsCollection([resource], ['getAll'], readOptions(false)),
	];
}

/**
 * `start_date` / `end_date` from the Created After / Before parameters, in the workflow's time zone
 * when they carry none; empty values are left out.
 */
export function periodQuery(
	this: IExecuteFunctions,
	startDate: unknown,
	endDate: unknown,
	itemIndex: number,
): { start_date?: string; end_date?: string } {
	const qs: { start_date?: string; end_date?: string } = {};
	const timeZone = this.getTimezone();
	for (const [value, field, parameter] of [
		[startDate, 'start_date', 'Created After'],
		[endDate, 'end_date', 'Created Before'],
	] as const) {
		if (value === undefined || value === null || value === '') continue;
		const iso = toIsoTimestamp(value, timeZone);
		if (!iso) {
			throw fieldError(this.getNode(), { parameter, field, rule: 'must be a date (ISO 8601)' }, itemIndex);
		}
		qs[field] = iso;
	}
	if (qs.start_date && qs.end_date && qs.start_date > qs.end_date) {
		const rule = 'must not be before Created After';
		throw fieldError(this.getNode(), { parameter: 'Created Before', field: 'end_date', rule }, itemIndex);
	}
	return qs;
}

function listQuery(this: IExecuteFunctions, resource: TransactionResource, itemIndex: number): IDataObject {
	const filters = this.getNodeParameter('filters', itemIndex, {}) as IDataObject;
	const qs: IDataObject = {};
	const statuses: readonly string[] = resource === 'payout' ? PAYOUT_STATUSES : CHARGE_STATUSES;
	if (filters.status) {
		if (!statuses.includes(String(filters.status))) {
			const rule = `must be one of ${statuses.join(', ')} for ${resource}s`;
			throw fieldError(this.getNode(), { parameter: 'Status', field: 'status', rule }, itemIndex);
		}
		qs.status = filters.status;
	}
	if (filters.channel) qs.channel = filters.channel;
	Object.assign(qs, periodQuery.call(this, filters.startDate, filters.endDate, itemIndex));
	return qs;
}

/** One output item per transaction; Return All follows the pages until the last one. */
export async function executeListTransactions(
	this: IExecuteFunctions,
	resource: TransactionResource,
	itemIndex: number,
	context: OperationContext,
): Promise<INodeExecutionData[]> {
	const qs = listQuery.call(this, resource, itemIndex);
	const returnAll = this.getNodeParameter('returnAll', itemIndex, false) as boolean;
	const limit = returnAll ? undefined : Number(this.getNodeParameter('limit', itemIndex, 50));
	if (limit !== undefined && !(Number.isInteger(limit) && limit >= 1 && limit <= LIST_PAGE_SIZE_MAX)) {
		const rule = `must be a whole number from 1 to ${LIST_PAGE_SIZE_MAX}`;
		throw fieldError(this.getNode(), { parameter: 'Limit', field: 'limit', rule }, itemIndex);
	}
	const settings = context.callSettings(itemIndex);

	const output: INodeExecutionData[] = [];
	const pages = moneyApiPages.call(this, ROUTES[resource], qs, {
		itemIndex,
		retry: settings.retry,
		timeoutMs: settings.timeoutMs,
		pageSize: limit ?? LIST_PAGE_SIZE_MAX,
	});
	for await (const page of pages) {
		for (const envelope of page.items) {
			output.push({ json: settings.simplify ? simplifyTransaction(envelope) : envelope, pairedItem: { item: itemIndex } });
			if (limit !== undefined && output.length >= limit) return output;
		}
	}
	return output;
}
