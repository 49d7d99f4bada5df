/**
 * The administration's routes (files, project settings, activity, operations, flows), each page in a
 * chunk of its own (React.lazy): none of them weighs on the first load.
 */
import { Route } from 'react-router-dom';
import { onDemand } from '../on-demand.js';

const FilesPage = onDemand(async () => (await import('../files/files-page.js')).default);
const SettingsPage = onDemand(async () => (await import('./settings-page.js')).default);
const ActivityPage = onDemand(async () => (await import('./activity-page.js')).default);
const OperationsPage = onDemand(async () => (await import('./operations-page.js')).default);
const FlowsPage = onDemand(async () => (await import('../flows/flows-page.js')).default);
const FlowPage = onDemand(async () => (await import('../flows/flow-page.js')).default);

export const AdminRoutes = [
  <Route key="files" path="/files" element={<FilesPage />} />,
  <Route key="settings" path="/settings/project" element={<SettingsPage />} />,
  <Route key="activity" path="/activity" element={<ActivityPage />} />,
  <Route key="operations" path="/operations" element={<OperationsPage />} />,
  <Route key="flows" path="/settings/flows" element={<FlowsPage />} />,
  <Route key="flow" path="/settings/flows/:id" element={<FlowPage />} />,
];
