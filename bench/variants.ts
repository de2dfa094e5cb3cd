import type { Workflow } from 'n8n-workflow';

import type { Engine } from '../test/harness/engine';
import type { SandboxInfo } from '../sandbox';
import { helperWorkflow, httpRequestNodeWorkflow, moneyGetWorkflow } from './engine';

/** The per-call variants a profile or an instruction count can run in a child process. */
export const ENGINE_VARIANTS = ['node', 'node8', 'nodeAll', 'helper', 'http', 'httpSequential'] as const;
export type EngineVariant = (typeof ENGINE_VARIANTS)[number];

/** Concurrency of `nodeAll`: above any item count the benches use, so every request starts at once as the HTTP Request node's do. */
const ALL_AT_ONCE = 1_000_000;

/** The workflow of a variant and the node whose output it checks. */
export function variantWorkflow(engine: Engine, info: SandboxInfo, variant: EngineVariant): [Workflow, string] {
	switch (variant) {
		case 'node':
			return [moneyGetWorkflow(engine, 1), 'Money'];
		case 'node8':
			return [moneyGetWorkflow(engine, undefined), 'Money'];
		case 'nodeAll':
			return [moneyGetWorkflow(engine, ALL_AT_ONCE), 'Money'];
		case 'helper':
			return [helperWorkflow(engine), 'Signed GET'];
		case 'http':
			return [httpRequestNodeWorkflow(engine, info), 'HTTP Request'];
		case 'httpSequential':
			return [httpRequestNodeWorkflow(engine, info, true), 'HTTP Request'];
	}
}
