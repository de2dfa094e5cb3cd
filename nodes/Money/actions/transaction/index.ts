import type { INodeProperties } from 'n8n-workflow';

import { operationField } from '../../descriptions/options';
import * as get from './get.operation';

export { get };

export const description: INodeProperties[] = [
	operationField('transaction', 'get', [
		{ name: 'Get', value: 'get', description: 'Get the details of a transaction by payment ID or unique ID', action: 'Get transaction details' },
	]),
	...get.description,
];
