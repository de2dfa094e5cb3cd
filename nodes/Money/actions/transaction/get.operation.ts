import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { ROUTES } from '../../../shared/constants';
import { moneyApiRequest } from '../../../shared/transport';
import { simplifyTransaction, withoutEnvelopeFlags } from '../../helpers/simplify';
import { fieldError, validateReference } from '../../helpers/validation';
import { optionsCollection, readOptions } from '../common.descriptions';
import type { OperationContext } from '../types';

export const description: INodeProperties[] = [
	{
		displayName: 'Transaction ID',
		name: 'transactionId',
		type: 'string',
		required: true,
		default: '',
		description: 'A payment identifier or unique_id of a transaction this merchant is the payer or payee of',
		displayOptions: { show: { resource: ['transaction'], operation: ['get'] } },
	},
	optionsCollection(['transaction'], ['get'], readOptions(true)),
];

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	context: OperationContext,
): Promise<INodeExecutionData[]> {
	const transactionId = validateReference(this.getNodeParameter('transactionId', itemIndex));
	if (!transactionId) {
		throw fieldError(this.getNode(), { parameter: 'Transaction ID', field: 'id', rule: 'is required' }, itemIndex);
	}
	const settings = context.callSettings(itemIndex);
	const response = await moneyApiRequest.call(
		this,
		'GET',
		`${ROUTES.transactionDetails}/${encodeURIComponent(transactionId)}`,
		{ itemIndex, retry: settings.retry, timeoutMs: settings.timeoutMs },
	);
	const details = withoutEnvelopeFlags(response);
	return [{ json: settings.simplify ? simplifyTransaction(details) : details, pairedItem: { item: itemIndex } }];
}
