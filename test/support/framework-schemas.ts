import { sql } from 'kysely';
import type { Connection } from '../../src/sql/connect.js';
import type { DialectName } from '../../src/sql/dialect.js';

/**
 * Tables as popular frameworks create them — the DDL their schema builders emit on each engine (raw
 * SQL, copied from what Laravel 11, Rails 7, Django 5, Prisma 5 and Drizzle generate), with a few rows
 * each — for `resource-query-service init` to read. Datetimes on SQLite are stored as each framework
 * writes them: `YYYY-MM-DD HH:MM:SS[.ffffff]` for Laravel, Rails and Django, integer unix
 * milliseconds (and seconds) for Prisma and Drizzle.
 */
export type Framework = 'laravel' | 'rails' | 'django' | 'prisma' | 'drizzle';

/** Which engines each framework's schema is written for. */
export const frameworkDialects: Record<Framework, DialectName[]> = {
  laravel: ['sqlite', 'postgres', 'mysql'],
  rails: ['sqlite', 'postgres', 'mysql'],
  django: ['sqlite', 'postgres', 'mysql'],
  prisma: ['sqlite'],
  drizzle: ['sqlite'],
};

/** Creates the framework's tables and rows in an empty database. */
export async function createFrameworkSchema(conn: Connection, framework: Framework): Promise<void> {
  for (const statement of frameworkStatements(framework, conn.dialect.name))
    await sql.raw(statement).execute(conn.db);
}

export function frameworkStatements(framework: Framework, dialect: DialectName): string[] {
  const statements = builders[framework](dialect);
  if (!statements) throw new Error(`No ${framework} schema for ${dialect}.`);
  return statements;
}

const builders: Record<Framework, (dialect: DialectName) => string[] | undefined> = {
  laravel,
  rails,
  django,
  prisma: (dialect) => (dialect === 'sqlite' ? prisma() : undefined),
  drizzle: (dialect) => (dialect === 'sqlite' ? drizzle() : undefined),
};

/** Laravel 11: users (soft deletes, remember_token), posts, roles and the role_user pivot. */
function laravel(dialect: DialectName): string[] {
  const ddl = {
    sqlite: [
      'create table "migrations" ("id" integer primary key autoincrement not null, "migration" varchar not null, "batch" integer not null)',
      'create table "users" ("id" integer primary key autoincrement not null, "name" varchar not null, "email" varchar not null, "email_verified_at" datetime, "password" varchar not null, "remember_token" varchar, "created_at" datetime, "updated_at" datetime, "deleted_at" datetime)',
      'create unique index "users_email_unique" on "users" ("email")',
      'create table "password_reset_tokens" ("email" varchar not null, "token" varchar not null, "created_at" datetime, primary key ("email"))',
      'create table "posts" ("id" integer primary key autoincrement not null, "user_id" integer not null, "title" varchar not null, "body" text not null, "meta" text, "published_at" datetime, "created_at" datetime, "updated_at" datetime, foreign key("user_id") references "users"("id") on delete cascade)',
      'create table "roles" ("id" integer primary key autoincrement not null, "name" varchar not null, "created_at" datetime, "updated_at" datetime)',
      'create unique index "roles_name_unique" on "roles" ("name")',
      'create table "role_user" ("user_id" integer not null, "role_id" integer not null, "created_at" datetime, "updated_at" datetime, foreign key("user_id") references "users"("id") on delete cascade, foreign key("role_id") references "roles"("id") on delete cascade, primary key ("user_id", "role_id"))',
    ],
    postgres: [
      'create table "migrations" ("id" serial not null primary key, "migration" varchar(255) not null, "batch" integer not null)',
      'create table "users" ("id" bigserial not null primary key, "name" varchar(255) not null, "email" varchar(255) not null, "email_verified_at" timestamp(0) without time zone null, "password" varchar(255) not null, "remember_token" varchar(100) null, "created_at" timestamp(0) without time zone null, "updated_at" timestamp(0) without time zone null, "deleted_at" timestamp(0) without time zone null)',
      'alter table "users" add constraint "users_email_unique" unique ("email")',
      'create table "password_reset_tokens" ("email" varchar(255) not null, "token" varchar(255) not null, "created_at" timestamp(0) without time zone null, primary key ("email"))',
      'create table "posts" ("id" bigserial not null primary key, "user_id" bigint not null, "title" varchar(255) not null, "body" text not null, "meta" json null, "published_at" timestamp(0) without time zone null, "created_at" timestamp(0) without time zone null, "updated_at" timestamp(0) without time zone null)',
      'alter table "posts" add constraint "posts_user_id_foreign" foreign key ("user_id") references "users" ("id") on delete cascade',
      'create table "roles" ("id" bigserial not null primary key, "name" varchar(255) not null, "created_at" timestamp(0) without time zone null, "updated_at" timestamp(0) without time zone null)',
      'alter table "roles" add constraint "roles_name_unique" unique ("name")',
      'create table "role_user" ("user_id" bigint not null, "role_id" bigint not null, "created_at" timestamp(0) without time zone null, "updated_at" timestamp(0) without time zone null, primary key ("user_id", "role_id"))',
      'alter table "role_user" add constraint "role_user_user_id_foreign" foreign key ("user_id") references "users" ("id") on delete cascade',
      'alter table "role_user" add constraint "role_user_role_id_foreign" foreign key ("role_id") references "roles" ("id") on delete cascade',
    ],
    mysql: [
      "create table `migrations` (`id` int unsigned not null auto_increment primary key, `migration` varchar(255) not null, `batch` int not null) default character set utf8mb4 collate 'utf8mb4_unicode_ci'",
      "create table `users` (`id` bigint unsigned not null auto_increment primary key, `name` varchar(255) not null, `email` varchar(255) not null, `email_verified_at` timestamp null, `password` varchar(255) not null, `remember_token` varchar(100) null, `created_at` timestamp null, `updated_at` timestamp null, `deleted_at` timestamp null) default character set utf8mb4 collate 'utf8mb4_unicode_ci'",
      'alter table `users` add unique `users_email_unique`(`email`)',
      "create table `password_reset_tokens` (`email` varchar(255) not null, `token` varchar(255) not null, `created_at` timestamp null, primary key (`email`)) default character set utf8mb4 collate 'utf8mb4_unicode_ci'",
      "create table `posts` (`id` bigint unsigned not null auto_increment primary key, `user_id` bigint unsigned not null, `title` varchar(255) not null, `body` text not null, `meta` json null, `published_at` timestamp null, `created_at` timestamp null, `updated_at` timestamp null) default character set utf8mb4 collate 'utf8mb4_unicode_ci'",
      'alter table `posts` add constraint `posts_user_id_foreign` foreign key (`user_id`) references `users` (`id`) on delete cascade',
      "create table `roles` (`id` bigint unsigned not null auto_increment primary key, `name` varchar(255) not null, `created_at` timestamp null, `updated_at` timestamp null) default character set utf8mb4 collate 'utf8mb4_unicode_ci'",
      'alter table `roles` add unique `roles_name_unique`(`name`)',
      "create table `role_user` (`user_id` bigint unsigned not null, `role_id` bigint unsigned not null, `created_at` timestamp null, `updated_at` timestamp null, primary key (`user_id`, `role_id`)) default character set utf8mb4 collate 'utf8mb4_unicode_ci'",
      'alter table `role_user` add constraint `role_user_user_id_foreign` foreign key (`user_id`) references `users` (`id`) on delete cascade',
      'alter table `role_user` add constraint `role_user_role_id_foreign` foreign key (`role_id`) references `roles` (`id`) on delete cascade',
    ],
  }[dialect];
  return [
    ...ddl,
    "insert into migrations (id, migration, batch) values (1, '0001_01_01_000000_create_users_table', 1), (2, '2024_01_01_000000_create_posts_table', 1)",
    `insert into users (id, name, email, email_verified_at, password, remember_token, created_at, updated_at, deleted_at) values
      (1, 'Ada Lovelace', 'ada@example.com', '2024-01-10 09:00:00', '$2y$12$ada', 'tok-ada', '2024-01-10 08:00:00', '2024-01-10 08:00:00', null),
      (2, 'Grace Hopper', 'grace@example.com', null, '$2y$12$grace', null, '2024-02-01 12:30:00', '2024-02-03 12:30:00', null),
      (3, 'Linus Gone', 'linus@example.com', null, '$2y$12$linus', null, '2024-03-01 00:00:00', '2024-03-01 00:00:00', '2024-04-01 00:00:00')`,
    "insert into password_reset_tokens (email, token, created_at) values ('grace@example.com', '$2y$12$reset', '2024-05-01 10:00:00')",
    `insert into posts (id, user_id, title, body, meta, published_at, created_at, updated_at) values
      (1, 1, 'Notes on the engine', 'Body 1', '{"tags": ["math"], "featured": true}', '2024-01-11 10:00:00', '2024-01-11 09:00:00', '2024-01-11 09:00:00'),
      (2, 1, 'Draft', 'Body 2', null, null, '2024-01-12 09:00:00', '2024-01-12 09:00:00'),
      (3, 2, 'Compilers', 'Body 3', '{"tags": ["cobol"], "featured": false}', '2024-02-05 10:00:00', '2024-02-05 09:00:00', '2024-02-05 09:00:00')`,
    `insert into roles (id, name, created_at, updated_at) values
      (1, 'admin', '2024-01-01 00:00:00', '2024-01-01 00:00:00'), (2, 'editor', '2024-01-01 00:00:00', '2024-01-01 00:00:00')`,
    'insert into role_user (user_id, role_id) values (1, 1), (1, 2), (2, 2)',
  ];
}

/** Rails 7: schema_migrations, ar_internal_metadata, accounts, articles, tags (habtm), profiles. */
function rails(dialect: DialectName): string[] {
  const ddl = {
    sqlite: [
      'CREATE TABLE "schema_migrations" ("version" varchar NOT NULL PRIMARY KEY)',
      'CREATE TABLE "ar_internal_metadata" ("key" varchar NOT NULL PRIMARY KEY, "value" varchar, "created_at" datetime(6) NOT NULL, "updated_at" datetime(6) NOT NULL)',
      'CREATE TABLE "accounts" ("id" integer PRIMARY KEY AUTOINCREMENT NOT NULL, "name" varchar NOT NULL, "api_key" varchar, "balance" decimal(12,2) DEFAULT 0.0 NOT NULL, "created_at" datetime(6) NOT NULL, "updated_at" datetime(6) NOT NULL)',
      'CREATE TABLE "articles" ("id" integer PRIMARY KEY AUTOINCREMENT NOT NULL, "account_id" integer NOT NULL, "title" varchar NOT NULL, "status" varchar DEFAULT \'draft\' NOT NULL, "word_count" integer, "published" boolean DEFAULT 0 NOT NULL, "created_at" datetime(6) NOT NULL, "updated_at" datetime(6) NOT NULL, CONSTRAINT "fk_rails_3d31dad1cc" FOREIGN KEY ("account_id") REFERENCES "accounts" ("id"))',
      'CREATE INDEX "index_articles_on_account_id" ON "articles" ("account_id")',
      'CREATE INDEX "index_articles_on_status" ON "articles" ("status")',
      'CREATE TABLE "tags" ("id" integer PRIMARY KEY AUTOINCREMENT NOT NULL, "name" varchar NOT NULL)',
      'CREATE UNIQUE INDEX "index_tags_on_name" ON "tags" ("name")',
      'CREATE TABLE "articles_tags" ("article_id" integer NOT NULL, "tag_id" integer NOT NULL, CONSTRAINT "fk_rails_1" FOREIGN KEY ("article_id") REFERENCES "articles" ("id"), CONSTRAINT "fk_rails_2" FOREIGN KEY ("tag_id") REFERENCES "tags" ("id"))',
      'CREATE INDEX "index_articles_tags_on_article_id_and_tag_id" ON "articles_tags" ("article_id", "tag_id")',
      'CREATE TABLE "profiles" ("id" integer PRIMARY KEY AUTOINCREMENT NOT NULL, "account_id" integer NOT NULL, "bio" text, "preferences" json, "created_at" datetime(6) NOT NULL, "updated_at" datetime(6) NOT NULL, CONSTRAINT "fk_rails_3" FOREIGN KEY ("account_id") REFERENCES "accounts" ("id"))',
      'CREATE UNIQUE INDEX "index_profiles_on_account_id" ON "profiles" ("account_id")',
    ],
    postgres: [
      'CREATE TABLE "schema_migrations" ("version" character varying NOT NULL PRIMARY KEY)',
      'CREATE TABLE "ar_internal_metadata" ("key" character varying NOT NULL PRIMARY KEY, "value" character varying, "created_at" timestamp(6) NOT NULL, "updated_at" timestamp(6) NOT NULL)',
      'CREATE TABLE "accounts" ("id" bigserial primary key, "name" character varying NOT NULL, "api_key" character varying, "balance" numeric(12,2) DEFAULT 0.0 NOT NULL, "created_at" timestamp(6) NOT NULL, "updated_at" timestamp(6) NOT NULL)',
      'CREATE TABLE "articles" ("id" bigserial primary key, "account_id" bigint NOT NULL, "title" character varying NOT NULL, "status" character varying DEFAULT \'draft\' NOT NULL, "word_count" integer, "published" boolean DEFAULT FALSE NOT NULL, "created_at" timestamp(6) NOT NULL, "updated_at" timestamp(6) NOT NULL, CONSTRAINT "fk_rails_3d31dad1cc" FOREIGN KEY ("account_id") REFERENCES "accounts" ("id"))',
      'CREATE INDEX "index_articles_on_account_id" ON "articles" ("account_id")',
      'CREATE INDEX "index_articles_on_status" ON "articles" ("status")',
      'CREATE TABLE "tags" ("id" bigserial primary key, "name" character varying NOT NULL)',
      'CREATE UNIQUE INDEX "index_tags_on_name" ON "tags" ("name")',
      'CREATE TABLE "articles_tags" ("article_id" bigint NOT NULL, "tag_id" bigint NOT NULL, CONSTRAINT "fk_rails_1" FOREIGN KEY ("article_id") REFERENCES "articles" ("id"), CONSTRAINT "fk_rails_2" FOREIGN KEY ("tag_id") REFERENCES "tags" ("id"))',
      'CREATE INDEX "index_articles_tags_on_article_id_and_tag_id" ON "articles_tags" ("article_id", "tag_id")',
      'CREATE TABLE "profiles" ("id" bigserial primary key, "account_id" bigint NOT NULL, "bio" text, "preferences" jsonb, "created_at" timestamp(6) NOT NULL, "updated_at" timestamp(6) NOT NULL, CONSTRAINT "fk_rails_3" FOREIGN KEY ("account_id") REFERENCES "accounts" ("id"))',
      'CREATE UNIQUE INDEX "index_profiles_on_account_id" ON "profiles" ("account_id")',
    ],
    mysql: [
      'CREATE TABLE `schema_migrations` (`version` varchar(255) NOT NULL PRIMARY KEY)',
      'CREATE TABLE `ar_internal_metadata` (`key` varchar(255) NOT NULL PRIMARY KEY, `value` varchar(255), `created_at` datetime(6) NOT NULL, `updated_at` datetime(6) NOT NULL)',
      'CREATE TABLE `accounts` (`id` bigint NOT NULL AUTO_INCREMENT PRIMARY KEY, `name` varchar(255) NOT NULL, `api_key` varchar(255), `balance` decimal(12,2) DEFAULT 0.0 NOT NULL, `created_at` datetime(6) NOT NULL, `updated_at` datetime(6) NOT NULL)',
      "CREATE TABLE `articles` (`id` bigint NOT NULL AUTO_INCREMENT PRIMARY KEY, `account_id` bigint NOT NULL, `title` varchar(255) NOT NULL, `status` varchar(255) DEFAULT 'draft' NOT NULL, `word_count` int, `published` tinyint(1) DEFAULT FALSE NOT NULL, `created_at` datetime(6) NOT NULL, `updated_at` datetime(6) NOT NULL, INDEX `index_articles_on_account_id` (`account_id`), INDEX `index_articles_on_status` (`status`), CONSTRAINT `fk_rails_3d31dad1cc` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`))",
      'CREATE TABLE `tags` (`id` bigint NOT NULL AUTO_INCREMENT PRIMARY KEY, `name` varchar(255) NOT NULL, UNIQUE INDEX `index_tags_on_name` (`name`))',
      'CREATE TABLE `articles_tags` (`article_id` bigint NOT NULL, `tag_id` bigint NOT NULL, INDEX `index_articles_tags_on_article_id_and_tag_id` (`article_id`, `tag_id`), CONSTRAINT `fk_rails_1` FOREIGN KEY (`article_id`) REFERENCES `articles` (`id`), CONSTRAINT `fk_rails_2` FOREIGN KEY (`tag_id`) REFERENCES `tags` (`id`))',
      'CREATE TABLE `profiles` (`id` bigint NOT NULL AUTO_INCREMENT PRIMARY KEY, `account_id` bigint NOT NULL, `bio` text, `preferences` json, `created_at` datetime(6) NOT NULL, `updated_at` datetime(6) NOT NULL, UNIQUE INDEX `index_profiles_on_account_id` (`account_id`), CONSTRAINT `fk_rails_3` FOREIGN KEY (`account_id`) REFERENCES `accounts` (`id`))',
    ],
  }[dialect];
  const at = (day: number) => `'2024-03-${String(day).padStart(2, '0')} 10:15:30.123456'`;
  return [
    ...ddl,
    "INSERT INTO schema_migrations (version) VALUES ('20240301000000'), ('20240302000000')",
    `INSERT INTO ar_internal_metadata (${dialect === 'mysql' ? '`key`' : '"key"'}, value, created_at, updated_at) VALUES ('environment', 'test', ${at(1)}, ${at(1)})`,
    `INSERT INTO accounts (id, name, api_key, balance, created_at, updated_at) VALUES
      (1, 'Acme', 'sk_live_acme', 1250.50, ${at(1)}, ${at(2)}),
      (2, 'Globex', null, 0, ${at(3)}, ${at(3)})`,
    `INSERT INTO articles (id, account_id, title, status, word_count, published, created_at, updated_at) VALUES
      (1, 1, 'Launch', 'published', 1200, true, ${at(4)}, ${at(4)}),
      (2, 1, 'Roadmap', 'draft', null, false, ${at(5)}, ${at(5)}),
      (3, 2, 'Hello', 'published', 300, true, ${at(6)}, ${at(6)})`,
    "INSERT INTO tags (id, name) VALUES (1, 'news'), (2, 'product')",
    'INSERT INTO articles_tags (article_id, tag_id) VALUES (1, 1), (1, 2), (3, 1)',
    `INSERT INTO profiles (id, account_id, bio, preferences, created_at, updated_at) VALUES
      (1, 1, 'We make everything', '{"theme": "dark"}', ${at(2)}, ${at(2)})`,
  ];
}

/** Django 5: django_migrations, auth_user (is_staff…), auth_group with its pivot, an app's blog_entry. */
function django(dialect: DialectName): string[] {
  const ddl = {
    sqlite: [
      'CREATE TABLE "django_migrations" ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT, "app" varchar(255) NOT NULL, "name" varchar(255) NOT NULL, "applied" datetime NOT NULL)',
      'CREATE TABLE "auth_group" ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT, "name" varchar(150) NOT NULL UNIQUE)',
      'CREATE TABLE "auth_user" ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT, "password" varchar(128) NOT NULL, "last_login" datetime NULL, "is_superuser" bool NOT NULL, "username" varchar(150) NOT NULL UNIQUE, "last_name" varchar(150) NOT NULL, "email" varchar(254) NOT NULL, "is_staff" bool NOT NULL, "is_active" bool NOT NULL, "date_joined" datetime NOT NULL, "first_name" varchar(150) NOT NULL)',
      'CREATE TABLE "auth_user_groups" ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT, "user_id" integer NOT NULL REFERENCES "auth_user" ("id") DEFERRABLE INITIALLY DEFERRED, "group_id" integer NOT NULL REFERENCES "auth_group" ("id") DEFERRABLE INITIALLY DEFERRED)',
      'CREATE UNIQUE INDEX "auth_user_groups_user_id_group_id_94350c0c_uniq" ON "auth_user_groups" ("user_id", "group_id")',
      'CREATE INDEX "auth_user_groups_user_id_6a12ed8b" ON "auth_user_groups" ("user_id")',
      'CREATE INDEX "auth_user_groups_group_id_97559544" ON "auth_user_groups" ("group_id")',
      'CREATE TABLE "blog_entry" ("id" integer NOT NULL PRIMARY KEY AUTOINCREMENT, "headline" varchar(255) NOT NULL, "body_text" text NOT NULL, "pub_date" date NOT NULL, "rating" integer NOT NULL, "metadata" text NULL CHECK ((JSON_VALID("metadata") OR "metadata" IS NULL)), "created" datetime NOT NULL, "author_id" integer NOT NULL REFERENCES "auth_user" ("id") DEFERRABLE INITIALLY DEFERRED)',
      'CREATE INDEX "blog_entry_author_id_8c5a0f0e" ON "blog_entry" ("author_id")',
    ],
    postgres: [
      'CREATE TABLE "django_migrations" ("id" bigint NOT NULL PRIMARY KEY GENERATED BY DEFAULT AS IDENTITY, "app" varchar(255) NOT NULL, "name" varchar(255) NOT NULL, "applied" timestamp with time zone NOT NULL)',
      'CREATE TABLE "auth_group" ("id" integer NOT NULL PRIMARY KEY GENERATED BY DEFAULT AS IDENTITY, "name" varchar(150) NOT NULL UNIQUE)',
      'CREATE TABLE "auth_user" ("id" integer NOT NULL PRIMARY KEY GENERATED BY DEFAULT AS IDENTITY, "password" varchar(128) NOT NULL, "last_login" timestamp with time zone NULL, "is_superuser" boolean NOT NULL, "username" varchar(150) NOT NULL UNIQUE, "first_name" varchar(150) NOT NULL, "last_name" varchar(150) NOT NULL, "email" varchar(254) NOT NULL, "is_staff" boolean NOT NULL, "is_active" boolean NOT NULL, "date_joined" timestamp with time zone NOT NULL)',
      'CREATE TABLE "auth_user_groups" ("id" bigint NOT NULL PRIMARY KEY GENERATED BY DEFAULT AS IDENTITY, "user_id" integer NOT NULL, "group_id" integer NOT NULL)',
      'ALTER TABLE "auth_user_groups" ADD CONSTRAINT "auth_user_groups_user_id_group_id_94350c0c_uniq" UNIQUE ("user_id", "group_id")',
      'ALTER TABLE "auth_user_groups" ADD CONSTRAINT "auth_user_groups_user_id_6a12ed8b_fk_auth_user_id" FOREIGN KEY ("user_id") REFERENCES "auth_user" ("id") DEFERRABLE INITIALLY DEFERRED',
      'ALTER TABLE "auth_user_groups" ADD CONSTRAINT "auth_user_groups_group_id_97559544_fk_auth_group_id" FOREIGN KEY ("group_id") REFERENCES "auth_group" ("id") DEFERRABLE INITIALLY DEFERRED',
      'CREATE INDEX "auth_user_groups_user_id_6a12ed8b" ON "auth_user_groups" ("user_id")',
      'CREATE INDEX "auth_user_groups_group_id_97559544" ON "auth_user_groups" ("group_id")',
      'CREATE TABLE "blog_entry" ("id" bigint NOT NULL PRIMARY KEY GENERATED BY DEFAULT AS IDENTITY, "headline" varchar(255) NOT NULL, "body_text" text NOT NULL, "pub_date" date NOT NULL, "rating" integer NOT NULL, "metadata" jsonb NULL, "created" timestamp with time zone NOT NULL, "author_id" integer NOT NULL)',
      'ALTER TABLE "blog_entry" ADD CONSTRAINT "blog_entry_author_id_8c5a0f0e_fk_auth_user_id" FOREIGN KEY ("author_id") REFERENCES "auth_user" ("id") DEFERRABLE INITIALLY DEFERRED',
      'CREATE INDEX "blog_entry_author_id_8c5a0f0e" ON "blog_entry" ("author_id")',
    ],
    mysql: [
      'CREATE TABLE `django_migrations` (`id` bigint AUTO_INCREMENT NOT NULL PRIMARY KEY, `app` varchar(255) NOT NULL, `name` varchar(255) NOT NULL, `applied` datetime(6) NOT NULL)',
      'CREATE TABLE `auth_group` (`id` integer AUTO_INCREMENT NOT NULL PRIMARY KEY, `name` varchar(150) NOT NULL UNIQUE)',
      'CREATE TABLE `auth_user` (`id` integer AUTO_INCREMENT NOT NULL PRIMARY KEY, `password` varchar(128) NOT NULL, `last_login` datetime(6) NULL, `is_superuser` bool NOT NULL, `username` varchar(150) NOT NULL UNIQUE, `first_name` varchar(150) NOT NULL, `last_name` varchar(150) NOT NULL, `email` varchar(254) NOT NULL, `is_staff` bool NOT NULL, `is_active` bool NOT NULL, `date_joined` datetime(6) NOT NULL)',
      'CREATE TABLE `auth_user_groups` (`id` bigint AUTO_INCREMENT NOT NULL PRIMARY KEY, `user_id` integer NOT NULL, `group_id` integer NOT NULL)',
      'ALTER TABLE `auth_user_groups` ADD CONSTRAINT `auth_user_groups_user_id_group_id_94350c0c_uniq` UNIQUE (`user_id`, `group_id`)',
      'ALTER TABLE `auth_user_groups` ADD CONSTRAINT `auth_user_groups_user_id_6a12ed8b_fk_auth_user_id` FOREIGN KEY (`user_id`) REFERENCES `auth_user` (`id`)',
      'ALTER TABLE `auth_user_groups` ADD CONSTRAINT `auth_user_groups_group_id_97559544_fk_auth_group_id` FOREIGN KEY (`group_id`) REFERENCES `auth_group` (`id`)',
      'CREATE TABLE `blog_entry` (`id` bigint AUTO_INCREMENT NOT NULL PRIMARY KEY, `headline` varchar(255) NOT NULL, `body_text` longtext NOT NULL, `pub_date` date NOT NULL, `rating` integer NOT NULL, `metadata` json NULL, `created` datetime(6) NOT NULL, `author_id` integer NOT NULL)',
      'ALTER TABLE `blog_entry` ADD CONSTRAINT `blog_entry_author_id_8c5a0f0e_fk_auth_user_id` FOREIGN KEY (`author_id`) REFERENCES `auth_user` (`id`)',
    ],
  }[dialect];
  const at = (day: number) => `'2024-05-${String(day).padStart(2, '0')} 14:00:00.500000'`;
  return [
    ...ddl,
    `INSERT INTO django_migrations (id, app, name, applied) VALUES (1, 'auth', '0001_initial', ${at(1)})`,
    "INSERT INTO auth_group (id, name) VALUES (1, 'editors'), (2, 'moderators')",
    `INSERT INTO auth_user (id, password, last_login, is_superuser, username, first_name, last_name, email, is_staff, is_active, date_joined) VALUES
      (1, 'pbkdf2_sha256$1', ${at(2)}, true, 'admin', 'Ada', 'Admin', 'admin@example.com', true, true, ${at(1)}),
      (2, 'pbkdf2_sha256$2', null, false, 'bob', 'Bob', 'Reader', 'bob@example.com', false, true, ${at(3)}),
      (3, 'pbkdf2_sha256$3', null, false, 'carol', 'Carol', 'Writer', 'carol@example.com', true, false, ${at(4)})`,
    'INSERT INTO auth_user_groups (id, user_id, group_id) VALUES (1, 1, 1), (2, 1, 2), (3, 3, 1)',
    `INSERT INTO blog_entry (id, headline, body_text, pub_date, rating, metadata, created, author_id) VALUES
      (1, 'First', 'Text', '2024-05-02', 4, '{"words": 120}', ${at(2)}, 1),
      (2, 'Second', 'More text', '2024-05-05', 5, null, ${at(5)}, 3)`,
  ];
}

/** Prisma 5 on SQLite: camelCase columns, DATETIME holding unix milliseconds, an implicit m2m table. */
function prisma(): string[] {
  const ms = (day: number) => Date.UTC(2024, 5, day, 12);
  return [
    'CREATE TABLE "_prisma_migrations" ("id" TEXT PRIMARY KEY NOT NULL, "checksum" TEXT NOT NULL, "finished_at" DATETIME, "migration_name" TEXT NOT NULL, "logs" TEXT, "rolled_back_at" DATETIME, "started_at" DATETIME NOT NULL DEFAULT current_timestamp, "applied_steps_count" INTEGER UNSIGNED NOT NULL DEFAULT 0)',
    'CREATE TABLE "User" ("id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, "email" TEXT NOT NULL, "name" TEXT, "passwordHash" TEXT NOT NULL, "isAdmin" BOOLEAN NOT NULL DEFAULT false, "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP, "updatedAt" DATETIME NOT NULL, "deletedAt" DATETIME)',
    'CREATE UNIQUE INDEX "User_email_key" ON "User"("email")',
    'CREATE TABLE "Post" ("id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, "title" TEXT NOT NULL, "content" TEXT, "published" BOOLEAN NOT NULL DEFAULT false, "authorId" INTEGER NOT NULL, "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP, CONSTRAINT "Post_authorId_fkey" FOREIGN KEY ("authorId") REFERENCES "User" ("id") ON DELETE RESTRICT ON UPDATE CASCADE)',
    'CREATE TABLE "Profile" ("id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, "bio" TEXT NOT NULL, "userId" INTEGER NOT NULL, CONSTRAINT "Profile_userId_fkey" FOREIGN KEY ("userId") REFERENCES "User" ("id") ON DELETE RESTRICT ON UPDATE CASCADE)',
    'CREATE UNIQUE INDEX "Profile_userId_key" ON "Profile"("userId")',
    'CREATE TABLE "Category" ("id" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT, "name" TEXT NOT NULL)',
    'CREATE TABLE "_CategoryToPost" ("A" INTEGER NOT NULL, "B" INTEGER NOT NULL, CONSTRAINT "_CategoryToPost_A_fkey" FOREIGN KEY ("A") REFERENCES "Category" ("id") ON DELETE CASCADE ON UPDATE CASCADE, CONSTRAINT "_CategoryToPost_B_fkey" FOREIGN KEY ("B") REFERENCES "Post" ("id") ON DELETE CASCADE ON UPDATE CASCADE)',
    'CREATE UNIQUE INDEX "_CategoryToPost_AB_unique" ON "_CategoryToPost"("A", "B")',
    'CREATE INDEX "_CategoryToPost_B_index" ON "_CategoryToPost"("B")',
    `INSERT INTO "_prisma_migrations" (id, checksum, finished_at, migration_name, started_at, applied_steps_count) VALUES ('m1', 'abc', ${ms(1)}, '20240601_init', ${ms(1)}, 1)`,
    `INSERT INTO "User" (id, email, name, passwordHash, isAdmin, createdAt, updatedAt, deletedAt) VALUES
      (1, 'alice@prisma.io', 'Alice', 'argon2$a', true, ${ms(1)}, ${ms(2)}, null),
      (2, 'bob@prisma.io', null, 'argon2$b', false, ${ms(3)}, ${ms(3)}, null),
      (3, 'gone@prisma.io', 'Gone', 'argon2$c', false, ${ms(4)}, ${ms(5)}, ${ms(6)})`,
    `INSERT INTO "Post" (id, title, content, published, authorId, createdAt) VALUES
      (1, 'Prisma on SQLite', 'Dates are integers', true, 1, ${ms(2)}),
      (2, 'Unpublished', null, false, 2, ${ms(4)})`,
    'INSERT INTO "Profile" (id, bio, userId) VALUES (1, \'Hi, I am Alice\', 1)',
    "INSERT INTO \"Category\" (id, name) VALUES (1, 'orm'), (2, 'sqlite')",
    'INSERT INTO "_CategoryToPost" ("A", "B") VALUES (1, 1), (2, 1)',
  ];
}

/**
 * Drizzle on SQLite: `integer({ mode: 'timestamp_ms' })` and `integer({ mode: 'timestamp' })` (seconds)
 * side by side, `integer({ mode: 'boolean' })`, JSON in a text column.
 */
function drizzle(): string[] {
  const ms = (day: number) => Date.UTC(2024, 6, day, 8, 30);
  const seconds = (day: number) => Math.floor(ms(day) / 1000);
  return [
    'CREATE TABLE IF NOT EXISTS "__drizzle_migrations" (id SERIAL PRIMARY KEY, hash text NOT NULL, created_at numeric)',
    'CREATE TABLE `users` (`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL, `name` text NOT NULL, `email` text NOT NULL, `session_token` text, `is_verified` integer DEFAULT false NOT NULL, `created_at` integer NOT NULL, `last_login_at` integer, `banned_at` integer)',
    'CREATE UNIQUE INDEX `users_email_unique` ON `users` (`email`)',
    'CREATE TABLE `posts` (`id` integer PRIMARY KEY AUTOINCREMENT NOT NULL, `author_id` integer NOT NULL, `title` text NOT NULL, `settings` text, `created_at` integer NOT NULL, `archived_at` integer, `deleted_at` integer, FOREIGN KEY (`author_id`) REFERENCES `users`(`id`) ON UPDATE no action ON DELETE no action)',
    'CREATE INDEX `posts_author_idx` ON `posts` (`author_id`)',
    `INSERT INTO "__drizzle_migrations" (hash, created_at) VALUES ('a1b2', ${ms(1)})`,
    `INSERT INTO users (id, name, email, session_token, is_verified, created_at, last_login_at) VALUES
      (1, 'Dora', 'dora@example.com', 'st_1', 1, ${ms(1)}, ${seconds(9)}),
      (2, 'Eli', 'eli@example.com', null, 0, ${ms(2)}, null)`,
    `INSERT INTO posts (id, author_id, title, settings, created_at, deleted_at) VALUES
      (1, 1, 'Drizzle tips', '{"pinned": true}', ${ms(3)}, null),
      (2, 2, 'Removed', '{"pinned": false}', ${ms(4)}, ${ms(5)}),
      (3, 1, 'More tips', null, ${ms(6)}, null)`,
  ];
}
