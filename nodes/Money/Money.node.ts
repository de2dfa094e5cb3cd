import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { MONEY_API_CREDENTIAL_TYPE } from '../api/values';
import * as account from './actions/account';
import * as payment from './actions/payment';
import { router } from './actions/router';
import { paceHints } from './descriptions/preview';
import { configuredOutputs } from './outputs';
import * as transaction from './actions/transaction';

export class Money implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Money',
		name: 'money',
		icon: { light: 'file:money.svg', dark: 'file:money.dark.svg' },
		group: ['transform'],
		// One version (docs/decisions.md#d8).
		version: 1,
		subtitle: '={{$parameter["operation"] + ": " + $parameter["resource"]}}',
		description: 'Collect charges, send payouts and read transactions and the merchant account with the Money API',
		defaults: { name: 'Money' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: `={{(${configuredOutputs})($parameter)}}`,
		credentials: [{ name: MONEY_API_CREDENTIAL_TYPE, required: true }],
		hints: paceHints,
		properties: [
			{
				displayName: 'Resource',
				name: 'resource',
				type: 'options',
				noDataExpression: true,
				options: [
					{ name: 'Account', value: 'account' },
					{ name: 'Charge', value: 'charge' },
					{ name: 'Payout', value: 'payout' },
					{ name: 'Transaction', value: 'transaction' },
				],
				default: 'charge',
			},
			...account.description,
			...payment.description('charge'),
			...payment.description('payout'),
			...transaction.description,
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
