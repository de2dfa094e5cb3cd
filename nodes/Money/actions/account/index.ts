import type { INodeProperties } from 'n8n-workflow';

import { operationField } from '../../descriptions/options';
import * as get from './get.operation';

export { get };

export const description: INodeProperties[] = [
	operationField('account', 'get', [
		{ name: 'Get', value: 'get', description: 'Get the merchant profile and its primary wallet', action: 'Get the merchant account' },
	]),
	...get.description,
];
