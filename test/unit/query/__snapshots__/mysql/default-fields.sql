select `t1`.`id` as `c0`, `t1`.`status` as `c1`, `t1`.`title` as `c2`, `t1`.`body` as `c3`, `t1`.`views` as `c4`, cast(`t1`.`rating` as char) as `c5`, cast(`t1`.`big` as char) as `c6`, `t1`.`featured` as `c7`, cast(`t1`.`published_on` as char) as `c8`, cast(`t1`.`published` as char) as `c9`, cast(`t1`.`created` as char) as `c10`, cast(`t1`.`starts` as char) as `c11`, cast(`t1`.`data` as char) as `c12`, `t1`.`tags` as `c13`, `t1`.`uid` as `c14`, `t1`.`secret` as `c15`, `t1`.`author` as `c16`, (
  select coalesce(json_arrayagg(`t2`.`id`
      order by `t2`.`id`
      limit ?), json_array())
  from `comments` as `t2`
  where `t2`.`article` = `t1`.`id`) as `c17`, (
  select coalesce(json_arrayagg(`t3`.`id`
      order by `t3`.`id`
      limit ?), json_array())
  from `articles_categories` as `t3`
  where `t3`.`articles_id` = `t1`.`id`) as `c18`, (
  select coalesce(json_arrayagg(`t4`.`id`
      order by `t4`.`sort` is null, `t4`.`sort`
      limit ?), json_array())
  from `articles_sections` as `t4`
  where `t4`.`articles_id` = `t1`.`id`) as `c19`
from `articles` as `t1`
order by `t1`.`id`
limit ?
-- values: [100,100,100,100]
