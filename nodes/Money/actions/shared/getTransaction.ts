import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { ROUTES, type TransactionResource } from '../../../shared/constants';
import { moneyApiRequest } from '../../../shared/transport';
import { simplifyTransaction } from '../../helpers/simplify';
import { fieldError, validateReference } from '../../helpers/validation';
import { optionsCollection, readOptions } from '../common.descriptions';
import type { OperationContext } from '../types';

export function getTransactionDescription(resource: TransactionResource): INodeProperties[] {
	return [
		{
			displayName: 'Reference',
			name: 'reference',
			type: 'string',
			required: true,
			default: '',
			description: `The reference returned when the ${resource} was created`,
			displayOptions: { show: { resource: [resource], operation: ['get'] } },
		},
		optionsCollection([resource], ['get'], readOptions(true)),
	];
}

export async function executeGetTransaction(
	this: IExecuteFunctions,
	resource: TransactionResource,
	itemIndex: number,
	context: OperationContext,
): Promise<INodeExecutionData[]> {
	const reference = validateReference(this.getNodeParameter('reference', itemIndex));
	if (!reference) {
		throw fieldError(this.getNode(), { parameter: 'Reference', field: 'reference', rule: 'is required' }, itemIndex);
	}
	const settings = context.callSettings(itemIndex);
	const response = await moneyApiRequest.call(this, 'GET', `${ROUTES[resource]}/${encodeURIComponent(reference)}`, {
		itemIndex,
		retry: settings.retry,
		timeoutMs: settings.timeoutMs,
	});
	const envelope = (response.data as IDataObject | undefined) ?? response;
	return [{ json: settings.simplify ? simplifyTransaction(envelope) : envelope, pairedItem: { item: itemIndex } }];
}
