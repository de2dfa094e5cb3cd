import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { executeListTransactions, listTransactionsDescription } from '../shared/listTransactions';
import type { OperationContext } from '../types';

export const description: INodeProperties[] = listTransactionsDescription('payout');

export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	context: OperationContext,
): Promise<INodeExecutionData[]> {
	return await executeListTransactions.call(this, 'payout', itemIndex, context);
}
