import type { INodeProperties } from 'n8n-workflow';

import { LIST_PAGE_SIZE_MAX, type TransactionResource } from '../../api/values';
import { channelOptions, statusOptions } from '../../api/options';

/** The parameters of Charge → Get Many and Payout → Get Many. */

export const returnAllField: INodeProperties = {
	displayName: 'Return All',
	name: 'returnAll',
	type: 'boolean',
	default: false,
	description: 'Whether to return all results or only up to a given limit',
};

export const limitField: INodeProperties = {
	displayName: 'Limit',
	name: 'limit',
	type: 'number',
	typeOptions: { minValue: 1, maxValue: LIST_PAGE_SIZE_MAX },
	default: 50,
	description: 'Max number of results to return',
	displayOptions: { show: { returnAll: [false] } },
};

/** Created After / Created Before of a list (optional; Reconcile has its own, required). */
const periodFields = (resource: TransactionResource): INodeProperties[] => [
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
];

export const listFilters = (resource: TransactionResource): INodeProperties => ({
	displayName: 'Filters',
	name: 'filters',
	type: 'collection',
	placeholder: 'Add filter',
	default: {},
	options: [
		{
			displayName: 'Channel',
			name: 'channel',
			type: 'options',
			options: channelOptions(),
			default: 'platform',
		},
		...periodFields(resource),
		{
			displayName: 'Status',
			name: 'status',
			type: 'options',
			options: statusOptions(resource),
			default: 'PENDING',
			description: `With Return All, the node reads every ${resource} of the period and keeps those in this status, so none is skipped when statuses change during the read. Set Created After to keep a long history out of the read.`,
		},
	],
});
