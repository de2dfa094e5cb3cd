import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { executeGetTransaction, getTransactionDescription } from '../shared/getTransaction';
import type { OperationContext } from '../types';

export const description: INodeProperties[] = getTransactionDescription('payout');

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	context: OperationContext,
): Promise<INodeExecutionData[]> {
	return await executeGetTransaction.call(this, 'payout', itemIndex, context);
}
