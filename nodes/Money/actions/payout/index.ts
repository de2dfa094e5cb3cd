import type { INodeProperties } from 'n8n-workflow';

import * as create from './create.operation';
import * as get from './get.operation';
import * as getAll from './getAll.operation';
import * as reconcile from './reconcile.operation';

export { create, get, getAll, reconcile };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['payout'] } },
		options: [
			{
				name: 'Create',
				value: 'create',
				description: 'Send money from the merchant wallet to a beneficiary',
				action: 'Create a payout',
			},
			{ name: 'Get', value: 'get', description: 'Get a payout by its reference', action: 'Get a payout' },
			{ name: 'Get Many', value: 'getAll', description: 'List payouts, newest first', action: 'Get many payouts' },
			{
				name: 'Reconcile',
				value: 'reconcile',
				description: 'Match your payout lines against every payout of a period: matched, mismatched, missing, unexpected',
				action: 'Reconcile payouts',
			},
		],
		default: 'create',
	},
	...create.description,
	...get.description,
	...getAll.description,
	...reconcile.description,
];
