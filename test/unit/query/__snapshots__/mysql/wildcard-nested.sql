select `t1`.`id` as `c0`, (
  select json_array(`t2`.`id`, `t2`.`status`, `t2`.`title`, `t2`.`body`, `t2`.`views`, cast(`t2`.`rating` as char), cast(`t2`.`big` as char), `t2`.`featured`, cast(`t2`.`published_on` as char), cast(`t2`.`published` as char), cast(`t2`.`created` as char), cast(`t2`.`starts` as char), cast(`t2`.`data` as char), `t2`.`tags`, `t2`.`uid`, `t2`.`secret`, `t2`.`author`, (
      select coalesce(json_arrayagg(`t3`.`id`
          order by `t3`.`id`
          limit ?), json_array())
      from `comments` as `t3`
      where `t3`.`article` = `t2`.`id`), (
      select coalesce(json_arrayagg(`t4`.`id`
          order by `t4`.`id`
          limit ?), json_array())
      from `articles_categories` as `t4`
      where `t4`.`articles_id` = `t2`.`id`), (
      select coalesce(json_arrayagg(`t5`.`id`
          order by `t5`.`sort` is null, `t5`.`sort`
          limit ?), json_array())
      from `articles_sections` as `t5`
      where `t5`.`articles_id` = `t2`.`id`)) as `v`
  from `articles` as `t2`
  where `t2`.`id` = `t1`.`article`) as `c1`, (
  select json_array(`t6`.`id`, `t6`.`name`, `t6`.`email`, `t6`.`country`, (
      select coalesce(json_arrayagg(`t7`.`id`
          order by `t7`.`id`
          limit ?), json_array())
      from `articles` as `t7`
      where `t7`.`author` = `t6`.`id`)) as `v`
  from `authors` as `t6`
  where `t6`.`id` = `t1`.`author`) as `c2`, `t1`.`text` as `c3`, `t1`.`sort` as `c4`
from `comments` as `t1`
order by `t1`.`id`
limit ?
-- values: [100,100,100,100,100]
