import type { INodeProperties } from 'n8n-workflow';

import * as get from './get.operation';

export { get };

export const description: INodeProperties[] = [
	{
		displayName: 'Operation',
		name: 'operation',
		type: 'options',
		noDataExpression: true,
		displayOptions: { show: { resource: ['transaction'] } },
		options: [
			{
				name: 'Get',
				value: 'get',
				description: 'Get the details of a transaction by payment ID or unique ID',
				action: 'Get transaction details',
			},
		],
		default: 'get',
	},
	...get.description,
];
