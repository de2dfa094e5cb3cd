import type { AllEntities, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import type { ItemRun } from '../helpers/create/run';

/** Every resource of the Money node with its operations; the router is checked against it. */
type MoneyMap = {
	account: 'get';
	charge: 'create' | 'get' | 'getAll' | 'reconcile';
	payout: 'create' | 'get' | 'getAll' | 'reconcile';
	transaction: 'get';
};

export type MoneyType = AllEntities<MoneyMap>;

/** An operation run item by item: reads. */
export interface OperationModule {
	execute: (this: IExecuteFunctions, itemIndex: number) => Promise<INodeExecutionData[]>;
}

/** An operation prepared over all input items before any request, then run item by item: creates. */
export interface RunOperationModule {
	start: (this: IExecuteFunctions) => Promise<ItemRun>;
}

/** An operation that takes all input items at once and returns one array per output (Reconcile). */
export interface BatchOperationModule {
	executeBatch: (this: IExecuteFunctions) => Promise<INodeExecutionData[][]>;
}
