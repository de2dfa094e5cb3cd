import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { limitField, listFilters, returnAllField } from '../../descriptions/listFields';
import { optionsCollection, readOptions, simplifyField } from '../../descriptions/options';
import { listLimit, listQuery, readList } from '../../helpers/read/list';
import { simplifyTransaction } from '../../helpers/simplify';
import { callSettingsOf } from '../../../transport/request';

export const description: INodeProperties[] = updateDisplayOptions({ show: { resource: ['charge'], operation: ['getAll'] } }, [
	returnAllField,
	limitField,
	listFilters('charge'),
	simplifyField,
	optionsCollection(readOptions(false)),
]);

/** One output item per charge, newest first; Return All follows the pages to the last one. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const qs = listQuery.call(this, 'charge', itemIndex);
	const limit = listLimit.call(this, itemIndex);
	const settings = callSettingsOf(this.getNodeParameter('options', itemIndex, {}) as IDataObject);
	const envelopes = await readList.call(this, 'charge', qs, limit, { ...settings, itemIndex });
	const simplify = this.getNodeParameter('simplify', itemIndex, true) as boolean;
	return envelopes.map((envelope) => ({ json: simplify ? simplifyTransaction(envelope) : envelope, pairedItem: { item: itemIndex } }));
}
