import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import type { TransactionResource } from '../../../api/values';
import { limitField, listFilters, returnAllField } from '../../descriptions/listFields';
import { optionsCollection, readOptions, simplifyField } from '../../descriptions/options';
import { listLimit, listQuery, readList } from '../../helpers/read/list';
import { simplifyTransaction } from '../../helpers/simplify';
import { callSettingsOf } from '../../../transport/request';

export const description = (resource: TransactionResource): INodeProperties[] =>
	updateDisplayOptions({ show: { resource: [resource], operation: ['getAll'] } }, [
		returnAllField,
		limitField,
		listFilters(resource),
		simplifyField,
		optionsCollection(readOptions(false)),
	]);

/** One output item per charge or payout, newest first; Return All reads the whole window, counted. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const resource = this.getNodeParameter('resource', 0) as TransactionResource;
	const qs = listQuery.call(this, resource, itemIndex);
	const limit = listLimit.call(this, itemIndex);
	const settings = callSettingsOf(this.getNodeParameter('options', itemIndex, {}) as IDataObject);
	const envelopes = await readList.call(this, resource, qs, limit, { ...settings, itemIndex });
	const simplify = this.getNodeParameter('simplify', itemIndex, true) as boolean;
	return envelopes.map((envelope) => ({ json: simplify ? simplifyTransaction(envelope) : envelope, pairedItem: { item: itemIndex } }));
}
