<?php
/*
 * Chores on one test WordPress site (test/support/wordpress-server.ts), done through WordPress's own
 * functions the way wp-admin does them. Usage: php wordpress-site.php COMMAND 'JSON arguments',
 * with SPS_WORDPRESS_CONFIG naming the site's /etc/wordpress/config-<name>.php (Debian's
 * wp-config.php picks it from $_SERVER['WORDPRESS_CONFIG']) and SPS_WORDPRESS_URL its address.
 * Answers one JSON line on stdout.
 */

$command = $argv[1] ?? '';
$args = json_decode($argv[2] ?? '{}', true, 16, JSON_THROW_ON_ERROR);
$url = getenv('SPS_WORDPRESS_URL');
$_SERVER['WORDPRESS_CONFIG'] = getenv('SPS_WORDPRESS_CONFIG');
$_SERVER['HTTP_HOST'] = parse_url($url, PHP_URL_HOST) . ':' . parse_url($url, PHP_URL_PORT);
$_SERVER['REQUEST_URI'] = '/';

if ($command === 'install') {
    define('WP_INSTALLING', true);
}
require '/usr/share/wordpress/wp-load.php';
require_once ABSPATH . 'wp-admin/includes/upgrade.php';

// The machine sends no mail: the install's "your new site" message would only log an error.
add_filter('pre_wp_mail', '__return_false');

function sps_permalinks(string $structure): void
{
    global $wp_rewrite;
    $wp_rewrite->set_permalink_structure($structure);
    $wp_rewrite->flush_rules(false);
}

function sps_user(array $args): array
{
    $id = wp_insert_user([
        'user_login' => $args['login'],
        'user_pass' => wp_generate_password(24),
        'user_email' => $args['email'],
        'display_name' => $args['name'],
        'role' => $args['role'],
    ]);
    if (is_wp_error($id)) {
        throw new RuntimeException($id->get_error_message());
    }
    [$password] = WP_Application_Passwords::create_new_application_password($id, ['name' => 'SPS']);
    return ['id' => $id, 'applicationPassword' => WP_Application_Passwords::chunk_password($password)];
}

switch ($command) {
    case 'install':
        $installed = wp_install($args['title'], 'admin', 'admin@example.com', false, '', wp_generate_password(24));
        update_option('siteurl', $url);
        update_option('home', $url);
        sps_permalinks($args['prettyPermalinks'] ? '/%postname%/' : '');
        $admin = get_user_by('id', $installed['user_id']);
        [$password] = WP_Application_Passwords::create_new_application_password($admin->ID, ['name' => 'tests']);
        echo json_encode(['adminPassword' => $password]), "\n";
        break;
    case 'user':
        echo json_encode(sps_user($args)), "\n";
        break;
    case 'permalinks':
        sps_permalinks($args['pretty'] ? '/%postname%/' : '');
        echo json_encode(['structure' => get_option('permalink_structure')]), "\n";
        break;
    default:
        fwrite(STDERR, "unknown command: $command\n");
        exit(2);
}
