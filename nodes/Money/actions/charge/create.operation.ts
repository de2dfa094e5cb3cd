import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { createTransactionDescription, executeCreateTransaction } from '../shared/createTransaction';
import type { OperationContext } from '../types';

export const description: INodeProperties[] = createTransactionDescription('charge');

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	context: OperationContext,
): Promise<INodeExecutionData[]> {
	return await executeCreateTransaction.call(this, 'charge', itemIndex, context);
}
