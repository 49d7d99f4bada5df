select `t1`.`id` as `c0`, (
  select coalesce(json_arrayagg(json_array(`t2`.`id`)
      order by (
        select `t3`.`data`
        from `articles` as `t3`
        where `t3`.`id` = `t2`.`article`) is null, (
        select `t4`.`data`
        from `articles` as `t4`
        where `t4`.`id` = `t2`.`article`)
      limit ?), json_array())
  from `comments` as `t2`
  where `t2`.`article` = `t1`.`id`) as `c1`
from `articles` as `t1`
order by `t1`.`data` is null desc, `t1`.`data` desc
limit ?
-- values: [100,100]
