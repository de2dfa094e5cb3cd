import type { ICredentialsDecrypted, IDataObject, IExecuteFunctions } from 'n8n-workflow';

import { MONEY_API_CREDENTIAL_TYPE } from '../../api/routes';
import type { TransactionResource } from '../../api/values';
import { DEFAULT_RETRY_POLICY, DEFAULT_TIMEOUT_MS } from '../../transport/retry';
import { CreateRun, createRunSettings } from '../helpers/create/run/createRun';
import type { CallSettings, OperationContext } from './node.type';

/** True when an AI agent runs the node as a tool (the `…Tool` node type, or a tool sub-execution). */
export function isToolMode(context: IExecuteFunctions): boolean {
	if (context.getNode().type.endsWith('Tool')) return true;
	return typeof context.isToolExecution === 'function' && context.isToolExecution();
}

function numberOption(options: IDataObject, name: string, fallback: number): number {
	const value = options[name];
	return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : fallback;
}

export function createOperationContext(context: IExecuteFunctions): OperationContext {
	let credential: Promise<ICredentialsDecrypted> | undefined;
	let createRun: Promise<CreateRun> | undefined;
	const operationContext: OperationContext = {
		isToolMode: isToolMode(context),
		credential: async () =>
			await (credential ??= context.getCredentials(MONEY_API_CREDENTIAL_TYPE).then((data) => {
				const named = context.getNode().credentials?.[MONEY_API_CREDENTIAL_TYPE];
				return { id: named?.id ?? '', name: named?.name ?? '', type: MONEY_API_CREDENTIAL_TYPE, data };
			})),
		createRun: async () =>
			await (createRun ??= operationContext.credential().then((pinned) => {
				const resource = context.getNodeParameter('resource', 0) as TransactionResource;
				const options = context.getNodeParameter('options', 0, {}) as IDataObject;
				return new CreateRun(createRunSettings(resource, options, pinned.data ?? {}), { ...operationContext.callSettings(0), credential: pinned });
			})),
		callSettings(itemIndex: number): CallSettings {
			const options = context.getNodeParameter('options', itemIndex, {}) as IDataObject;
			return {
				retry: {
					maxRetries: Math.floor(numberOption(options, 'maxRetries', DEFAULT_RETRY_POLICY.maxRetries)),
					baseDelayMs: numberOption(options, 'retryBaseDelayMs', DEFAULT_RETRY_POLICY.baseDelayMs),
				},
				timeoutMs: numberOption(options, 'requestTimeoutMs', DEFAULT_TIMEOUT_MS) || DEFAULT_TIMEOUT_MS,
			};
		},
	};
	return operationContext;
}
