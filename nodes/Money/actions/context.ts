import type { ICredentialDataDecryptedObject, IExecuteFunctions } from 'n8n-workflow';

import { MONEY_CREDENTIAL_TYPE } from '../../shared/constants';
import { DEFAULT_RETRY_POLICY, DEFAULT_TIMEOUT_MS } from '../../shared/transport';
import type { CallSettings, OperationContext } from './types';

/** True when an AI agent runs the node as a tool (the `…Tool` node type, or a tool sub-execution). */
export function isToolMode(context: IExecuteFunctions): boolean {
	if (context.getNode().type.endsWith('Tool')) return true;
	return typeof context.isToolExecution === 'function' && context.isToolExecution();
}

function numberOption(context: IExecuteFunctions, name: string, itemIndex: number, fallback: number): number {
	const value = context.getNodeParameter(`options.${name}`, itemIndex, fallback) as unknown;
	return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : fallback;
}

export function createOperationContext(context: IExecuteFunctions): OperationContext {
	let credentials: Promise<ICredentialDataDecryptedObject> | undefined;
	return {
		isToolMode: isToolMode(context),
		credentials: async () => await (credentials ??= context.getCredentials(MONEY_CREDENTIAL_TYPE)),
		callSettings(itemIndex: number): CallSettings {
			return {
				retry: {
					maxRetries: Math.floor(numberOption(context, 'maxRetries', itemIndex, DEFAULT_RETRY_POLICY.maxRetries)),
					baseDelayMs: numberOption(context, 'retryBaseDelayMs', itemIndex, DEFAULT_RETRY_POLICY.baseDelayMs),
				},
				timeoutMs: numberOption(context, 'requestTimeoutMs', itemIndex, DEFAULT_TIMEOUT_MS) || DEFAULT_TIMEOUT_MS,
			};
		},
	};
}
