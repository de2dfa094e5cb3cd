import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { itemRoute, type TransactionResource } from '../../../api/values';
import { optionsCollection, readOptions, simplifyField } from '../../descriptions/options';
import { readOne, requiredReference } from '../../helpers/read/readOne';
import { simplifyTransaction } from '../../helpers/simplify';

export const description = (resource: TransactionResource): INodeProperties[] =>
	updateDisplayOptions({ show: { resource: [resource], operation: ['get'] } }, [
		{
			displayName: 'Reference',
			name: 'reference',
			type: 'string',
			required: true,
			default: '',
			description: `The reference returned when the ${resource} was created`,
		},
		simplifyField,
		optionsCollection(readOptions(true)),
	]);

/** One charge or payout by its reference: the API's envelope, or its simplified form. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const resource = this.getNodeParameter('resource', 0) as TransactionResource;
	const reference = requiredReference.call(this, { name: 'reference', displayName: 'Reference', field: 'reference' }, itemIndex);
	return await readOne.call(this, itemRoute(resource, reference), itemIndex, simplifyTransaction);
}
