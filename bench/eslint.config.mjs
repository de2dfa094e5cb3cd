import { toolsConfig } from '../scripts/lint/tools.mjs';

export default toolsConfig({ ignores: ['results/**'] });
