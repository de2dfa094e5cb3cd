/** What scripts/test-queue.ts hands each queue-mode scenario. */

import type { SandboxInfo } from '../../sandbox';
import type { executionError, nodeOutput, PublicApi, Session } from '../n8n';
import type { SandboxControlClient } from '../../sandbox/control/client';
import type { RunningTopology } from './topology';

export interface QueueContext {
	ids: { payoutsRef: string; payoutsDefault: string; trigger: string; poll: string };
	/** Webhook paths of the payout workflows. */
	paths: { payoutsRef: string; payoutsDefault: string };
	session: Session;
	api: PublicApi;
	triggerWebhookId: string;
	topology: RunningTopology;
	control: SandboxControlClient;
	info: SandboxInfo;
	output: typeof nodeOutput;
	error: typeof executionError;
	/** Executions per worker at once. */
	concurrency: number;
	log(msg: string): void;
}

/** The figures a scenario reports (written to bench/results/queue.json). */
export type ScenarioReport = Record<string, any>;
