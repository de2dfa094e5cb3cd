import type { Engine } from '../../test/harness/engine';
import type { SandboxProcess } from '../processes';

export interface BenchContext {
	engine: Engine;
	/** The sandbox of figures 1-4 and 6, in its own process. */
	sandbox: SandboxProcess;
	/** References of seeded charges, one per item. */
	references: string[];
	/** A bearer token for the floor client. */
	token: string;
}
