import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { itemRoute } from '../../../api/values';
import { optionsCollection, readOptions, simplifyField } from '../../descriptions/options';
import { readOne, requiredReference } from '../../helpers/read/readOne';
import { simplifyTransaction } from '../../helpers/simplify';
import { callSettingsOf } from '../../../transport/request';

export const description: INodeProperties[] = updateDisplayOptions({ show: { resource: ['payout'], operation: ['get'] } }, [
	{
		displayName: 'Reference',
		name: 'reference',
		type: 'string',
		required: true,
		default: '',
		description: 'The reference returned when the payout was created',
	},
	simplifyField,
	optionsCollection(readOptions(true)),
]);

/** One payout by its reference: the API's envelope, or its simplified form. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const reference = requiredReference.call(this, { name: 'reference', displayName: 'Reference', field: 'reference' }, itemIndex);
	const settings = callSettingsOf(this.getNodeParameter('options', itemIndex, {}) as IDataObject);
	const response = await readOne.call(this, itemRoute('payout', reference), itemIndex, settings);
	const envelope = (response.data as IDataObject | undefined) ?? response;
	const simplify = this.getNodeParameter('simplify', itemIndex, true) as boolean;
	return [{ json: simplify ? simplifyTransaction(envelope) : envelope, pairedItem: { item: itemIndex } }];
}
