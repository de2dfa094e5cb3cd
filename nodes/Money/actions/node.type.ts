import type {
	AllEntities,
	ICredentialDataDecryptedObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';

import type { RetryPolicy } from '../../transport/retry';
import type { CreateRun } from '../helpers/create/run/createRun';

/** Every resource of the Money node with its operations; the router is checked against it. */
type MoneyMap = {
	account: 'get';
	charge: 'create' | 'get' | 'getAll' | 'reconcile';
	payout: 'create' | 'get' | 'getAll' | 'reconcile';
	transaction: 'get';
};

export type MoneyType = AllEntities<MoneyMap>;

export interface CallSettings {
	retry: RetryPolicy;
	timeoutMs: number;
	simplify: boolean;
}

export interface OperationContext {
	isToolMode: boolean;
	credentials(): Promise<ICredentialDataDecryptedObject>;
	callSettings(itemIndex: number): CallSettings;
	/** The creates of this node execution (pacing, caps, balance check), started on first use. */
	createRun(): Promise<CreateRun>;
}

export type OperationExecute = (
	this: IExecuteFunctions,
	itemIndex: number,
	context: OperationContext,
) => Promise<INodeExecutionData[]>;

export interface OperationModule {
	description: INodeProperties[];
	execute: OperationExecute;
}

/** An operation that takes all input items at once and returns one array per output (Reconcile). */
export interface BatchOperationModule {
	description: INodeProperties[];
	executeBatch: (this: IExecuteFunctions, context: OperationContext) => Promise<INodeExecutionData[][]>;
}
