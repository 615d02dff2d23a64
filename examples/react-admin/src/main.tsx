/**
 * react-admin over the demo service: users with explicit views (a search, filters with operators,
 * sortable columns where the endpoint allows them, an edit form whose 422s show under the inputs), posts
 * with react-admin's guessers. Run the demo (`npm start`), then `npx vite --config
 * examples/react-admin/vite.config.ts`.
 */
import { StrictMode } from 'react';
import {
  Admin,
  BooleanField,
  BooleanInput,
  Create,
  Datagrid,
  DateField,
  Edit,
  EditGuesser,
  EmailField,
  List,
  ListGuesser,
  NumberField,
  NumberInput,
  PasswordInput,
  Resource,
  SearchInput,
  SelectInput,
  SimpleForm,
  TextField,
  TextInput,
} from 'react-admin';
import { createRoot } from 'react-dom/client';
import { reactAdminDataProvider } from '../../../src/providers/react-admin.js';

/**
 * The demo's editor token (examples/demo/auth.ts). Its secret is published in the README, so this is
 * no secret either; a real app gets its token from its sign-in (react-admin's authProvider).
 */
const DEMO_EDITOR_TOKEN =
  'eyJhbGciOiJIUzI1NiJ9.eyJyb2xlIjoiZWRpdG9yIiwic3ViIjoiZGVtby1lZGl0b3IiLCJpYXQiOjE3NjcyMjU2MDB9.HGGcQu6ZR245fu1Ogv_J5XG4Sig8cBZ9YyytYMFzUeE';

const dataProvider = reactAdminDataProvider({
  apiUrl: '/api',
  headers: { authorization: `Bearer ${DEMO_EDITOR_TOKEN}` },
});

const statuses = [
  { id: 'active', name: 'Active' },
  { id: 'inactive', name: 'Inactive' },
  { id: 'banned', name: 'Banned' },
];

// `score_gte` → filter[score][gte]: the provider reads the operator from the key's suffix.
const userFilters = [
  <SearchInput key="q" source="q" alwaysOn />,
  <SelectInput key="status" source="status" choices={statuses} />,
  <NumberInput key="score_gte" source="score_gte" label="Score at least" alwaysOn />,
  <TextInput key="email_ends_with" source="email_ends_with" label="Email ends with" />,
];

// Columns the endpoint cannot sort by (not in allowedSorts) are not sortable here either.
const UserList = () => (
  // No export button: react-admin exports with perPage 1000, over the endpoint's per_page maximum (100).
  <List filters={userFilters} sort={{ field: 'score', order: 'DESC' }} perPage={10} exporter={false}>
    <Datagrid rowClick="edit" bulkActionButtons={false}>
      <TextField source="id" sortable={false} />
      <TextField source="name" />
      <EmailField source="email" />
      <TextField source="status" sortable={false} />
      <NumberField source="score" />
      <BooleanField source="is_admin" label="Admin" sortable={false} />
      <DateField source="created_at" label="Joined" />
    </Datagrid>
  </List>
);

const userInputs = [
  <TextInput key="name" source="name" />,
  <TextInput key="email" source="email" />,
  <SelectInput key="status" source="status" choices={statuses} />,
  <NumberInput key="score" source="score" />,
  <NumberInput key="balance" source="balance" />,
  <BooleanInput key="is_admin" source="is_admin" label="Administrator" />,
];

// Pessimistic: the form waits for the answer, so the service's 422 lands under the inputs.
const UserEdit = () => (
  <Edit mutationMode="pessimistic">
    <SimpleForm>{userInputs}</SimpleForm>
  </Edit>
);

const UserCreate = () => (
  <Create>
    <SimpleForm>
      {userInputs}
      <PasswordInput source="password" />
    </SimpleForm>
  </Create>
);

const root = document.getElementById('root');
if (root)
  createRoot(root).render(
    <StrictMode>
      <Admin dataProvider={dataProvider} disableTelemetry>
        <Resource
          name="users"
          list={UserList}
          edit={UserEdit}
          create={UserCreate}
          recordRepresentation="name"
        />
        <Resource
          name="posts"
          list={<ListGuesser sort={{ field: 'created_at', order: 'DESC' }} />}
          edit={<EditGuesser mutationMode="pessimistic" />}
          recordRepresentation="title"
        />
      </Admin>
    </StrictMode>,
  );
