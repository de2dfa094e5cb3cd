import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';
import { updateDisplayOptions } from 'n8n-workflow';

import { ROUTES } from '../../../api/values';
import { optionsCollection, readOptions, simplifyField } from '../../descriptions/options';
import { readOne } from '../../helpers/read/readOne';
import { simplifyAccount } from '../../helpers/simplify';

export const description: INodeProperties[] = updateDisplayOptions({ show: { resource: ['account'], operation: ['get'] } }, [
	simplifyField,
	optionsCollection(readOptions(true)),
]);

/** The merchant profile and its primary wallet. */
export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<INodeExecutionData[]> {
	return await readOne.call(this, ROUTES.account, itemIndex, simplifyAccount);
}
