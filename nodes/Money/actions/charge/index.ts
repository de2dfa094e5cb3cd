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
		displayOptions: { show: { resource: ['charge'] } },
		options: [
			{
				name: 'Create',
				value: 'create',
				description: 'Collect money from a payer into the merchant wallet',
				action: 'Create a charge',
			},
			{ name: 'Get', value: 'get', description: 'Get a charge by its reference', action: 'Get a charge' },
			{ name: 'Get Many', value: 'getAll', description: 'List charges, newest first', action: 'Get many charges' },
			{
				name: 'Reconcile',
				value: 'reconcile',
				description: 'Match your records against every charge of a period: matched, mismatched, missing, unexpected',
				action: 'Reconcile charges',
			},
		],
		default: 'create',
	},
	...create.description,
	...get.description,
	...getAll.description,
	...reconcile.description,
];
