import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { ROUTES } from '../../../shared/constants';
import { moneyApiRequest } from '../../../shared/transport';
import { simplifyAccount, withoutEnvelopeFlags } from '../../helpers/simplify';
import { optionsCollection, readOptions } from '../common.descriptions';
import type { OperationContext } from '../types';

export const description: INodeProperties[] = [optionsCollection(['account'], ['get'], readOptions(true))];

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	context: OperationContext,
): Promise<INodeExecutionData[]> {
	const settings = context.callSettings(itemIndex);
	const response = await moneyApiRequest.call(this, 'GET', ROUTES.account, {
		itemIndex,
		retry: settings.retry,
		timeoutMs: settings.timeoutMs,
	});
	const account = withoutEnvelopeFlags(response);
	return [{ json: settings.simplify ? simplifyAccount(account) : account, pairedItem: { item: itemIndex } }];
}
