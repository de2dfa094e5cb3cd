import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { ROUTES } from '../../../api/values';
import { optionsCollection, readOptions, simplifyField } from '../../descriptions/options';
import { readOne } from '../../helpers/read/readOne';
import { simplifyAccount, withoutEnvelopeFlags } from '../../helpers/simplify';
import { callSettingsOf } from '../../../transport/request';

export const description: INodeProperties[] = updateDisplayOptions({ show: { resource: ['account'], operation: ['get'] } }, [
	simplifyField,
	optionsCollection(readOptions(true)),
]);

/** The merchant profile and its primary wallet. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	const settings = callSettingsOf(this.getNodeParameter('options', itemIndex, {}) as IDataObject);
	const account = withoutEnvelopeFlags(await readOne.call(this, ROUTES.account, itemIndex, settings));
	const simplify = this.getNodeParameter('simplify', itemIndex, true) as boolean;
	return [{ json: simplify ? simplifyAccount(account) : account, pairedItem: { item: itemIndex } }];
}
