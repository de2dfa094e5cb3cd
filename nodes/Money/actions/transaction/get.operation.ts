import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { itemRoute } from '../../../api/values';
import { optionsCollection, readOptions, simplifyField } from '../../descriptions/options';
import { readOne, requiredReference } from '../../helpers/read/readOne';
import { simplifyTransaction } from '../../helpers/simplify';

export const description: INodeProperties[] = updateDisplayOptions({ show: { resource: ['transaction'], operation: ['get'] } }, [
	{
		displayName: 'Transaction ID',
		name: 'transactionId',
		type: 'string',
		required: true,
		default: '',
		description: 'A payment identifier or unique_id of a transaction this merchant is the payer or payee of',
	},
	simplifyField,
	optionsCollection(readOptions(true)),
]);

/** The details of one transaction the merchant is party to, by payment ID or unique ID. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const transactionId = requiredReference.call(this, { name: 'transactionId', displayName: 'Transaction ID', field: 'id' }, itemIndex);
	return await readOne.call(this, itemRoute('transactionDetails', transactionId), itemIndex, simplifyTransaction);
}
