import type {
	AllEntities,
	ICredentialsDecrypted,
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
	/** The credential every call sends with (creates: OperationContext.credential); absent, n8n reads it per call. */
	credential?: ICredentialsDecrypted;
}

export interface OperationContext {
	isToolMode: boolean;
	/**
	 * The node's Money API credential, read once for the node run: every create of the run, its PIN
	 * and the API client its memory names go with it, whatever the credential says by the time a
	 * paced or resent create goes out (a credential edited mid-run applies to the next run).
	 */
	credential(): Promise<ICredentialsDecrypted>;
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
